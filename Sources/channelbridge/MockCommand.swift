import ChannelBridgeContracts
import ChannelBridgePlatform
import ChannelBridgeSocket
import ChannelBridgeTesting

/// `channelbridge mock --transcript FILE --socket PATH`: a host that answers from a transcript
/// (Protocol/transcript.md) and reports, at the end, what was never asked and what did not match.
enum MockCommand: CLICommand {
    static let name = "mock"
    static let summary = "serve a transcript as a host; report interactions missed or unexpected"

    static let help = """
        usage: channelbridge mock --transcript FILE [--socket PATH] [--once] [--any-order]

        Serves the transcript FILE (Protocol/transcript.md) on PATH as a host: each call that
        matches the next recorded interaction of its channel gets the recorded reply (its bytes
        exactly when the transcript has them); a listen gets its reply, then its events and end.
        A call that matches nothing is answered with the error UNEXPECTED_CALL, naming the nearest
        recorded interaction and the difference.

        Prints 'ready PATH' once it serves. At the end (the first client gone with --once, else
        SIGTERM or Ctrl-C) it prints to stderr one line per interaction never made ('missing: …')
        and per call that matched nothing ('unexpected: …'), and exits 1 if there is any, else 0.

        Options:
          --transcript FILE  the transcript to serve
          --socket PATH      where to serve (default: \(SocketPath.defaultPath()))
          --once             serve one client and end when it is gone
          --any-order        match each channel's calls in any order, whatever the transcript says

        Example:
          channelbridge mock --transcript Examples/Contracts/share-text.json --socket /tmp/mock.sock --once &
          channelbridge items --socket /tmp/mock.sock
        """

    static func run(_ arguments: [String]) async throws -> Int32 {
        let args = try Arguments(arguments, valued: ["transcript", "socket"], flags: ["once", "any-order"])
        if args.wantsHelp {
            Output.line(help)
            return ExitCode.success
        }
        guard args.positionals.isEmpty else { throw UsageError("unexpected argument '\(args.positionals[0])'") }
        guard let file = args.value("transcript") else { throw UsageError("needs --transcript FILE") }
        let transcript: Transcript
        do {
            transcript = try Transcript(contentsOfFile: file)
        } catch {
            throw CommandFailure(ExitCode.dataError, "\(file): \(error.description)")
        }
        if let unsendable = transcript.unsendableReply {
            throw CommandFailure(ExitCode.dataError, "\(file): \(unsendable)")
        }
        let mock = MockHost(transcript: transcript, anyOrder: args.flag("any-order"))
        let path = args.value("socket") ?? SocketPath.defaultPath()
        let once = args.flag("once")
        let sessionEnded = AsyncStream<Void>.makeStream()
        let listener: SocketListener
        do {
            listener = try SocketListener(binding: path) { connection in
                mock.serve(connection.messenger)
                connection.onClose { _ in sessionEnded.continuation.yield() }
            }
        } catch {
            throw CommandFailure(ExitCode.unavailable, error.description)
        }
        let watcher = ProcessSignals.watch([ProcessSignals.interrupt, ProcessSignals.terminate])
        await watcher.waitUntilWatching()
        // Said before accepting: a client's first reply cannot overtake the ready line.
        Output.line("ready \(path)")
        Output.flush()
        do {
            try listener.startAccepting()
        } catch {
            throw CommandFailure(ExitCode.unavailable, error.description)
        }
        let ending = Task {
            for await _ in watcher.signals { break }
            sessionEnded.continuation.finish()
        }
        for await _ in sessionEnded.stream where once { break }
        ending.cancel()
        watcher.cancel()
        listener.close()
        await listener.waitUntilClosed()
        let report = mock.report
        for line in report { Output.error(line) }
        return report.isEmpty ? ExitCode.success : ExitCode.failure
    }
}

import ChannelBridgePlatform
import ChannelBridgeSocket

/// `channelbridge record --listen PATH --socket HOST [--transcript FILE]`: a transparent proxy
/// between clients and a host that writes the transcript of what passed (Protocol/transcript.md).
enum RecordCommand: CLICommand {
    static let name = "record"
    static let summary = "proxy clients to a host and write the transcript of what passed"

    static let help = """
        usage: channelbridge record --listen PATH --socket HOST [--transcript FILE] [--redact KEY|channel:NAME]... [--once]

        Serves PATH and passes every client's connection through to the host at HOST byte for
        byte. With --transcript, writes the transcript (Protocol/transcript.md) of what passed,
        as it passes: each call with its arguments and reply, each listen with its events, each
        one-way message, values in typed value notation with the exact bytes beside them. The
        file is streamed to disk (what is held in memory is bounded: a stream's events until it
        ends, at most 10,000 interactions behind an open stream); it is a complete document once
        recording ends. The proxy's threads only pass bytes on and queue a copy of them (at most
        4 MiB: when the queue is full the proxy waits for it, nothing is dropped); one thread
        takes the queue at most 1 ms after bytes come into it, decodes them and writes their
        lines with one write. So an interaction reaches the file about 1 ms after it completes
        (its reply passed, or its stream ended), and a proxy killed with SIGKILL loses what it
        had not yet written.
        Without --transcript nothing is decoded or queued: the proxy only passes bytes on.

        Recorded: what the client begins (calls, listen/cancel, messages) and what the host
        sends on its own (events, one-way messages). Not recorded, and counted on stderr at the
        end: calls the host begins, requests that failed in the handler (REPLY status 2), and
        payloads that decode with neither the standard nor the JSON codec.

        Prints 'ready PATH' once it serves; ends on SIGTERM or Ctrl-C (or, with --once, when the
        first client is gone), then writes the end of the transcript and exits 0.

        Options:
          --listen PATH       where clients connect
          --socket HOST       the host's socket (default: \(SocketPath.defaultPath()))
          --transcript FILE   write the transcript here
          --redact KEY        replace the value of every map pair whose key is the string KEY by a
                              matcher of its type with a placeholder example (repeatable); the
                              bytes of an interaction holding one are not written
          --redact channel:NAME
                              the same for every value on the channel NAME
          --once              serve one client and end when it is gone

        Example:
          channelbridge record --listen /tmp/rec.sock --socket /tmp/host.sock --transcript session.json --once &
          channelbridge items --socket /tmp/rec.sock
        """

    static func run(_ arguments: [String]) async throws -> Int32 {
        let args = try Arguments(arguments, valued: ["listen", "socket", "transcript", "redact"], flags: ["once"])
        if args.wantsHelp {
            Output.line(help)
            return ExitCode.success
        }
        guard args.positionals.isEmpty else { throw UsageError("unexpected argument '\(args.positionals[0])'") }
        guard let listenPath = args.value("listen") else { throw UsageError("needs --listen PATH") }
        let hostPath = args.value("socket") ?? SocketPath.defaultPath()
        guard let hostAddress = Syscalls.address(for: hostPath) else {
            throw UsageError("--socket: a Unix socket path must have 1 to 107 bytes and no NUL")
        }
        var keys: Set<String> = [], channels: Set<String> = []
        for redaction in args.values("redact") {
            if redaction.hasPrefix("channel:") {
                let name = String(redaction.dropFirst("channel:".count))
                guard !name.isEmpty else { throw UsageError("--redact channel:NAME needs a channel name") }
                channels.insert(name)
            } else {
                guard !redaction.isEmpty else { throw UsageError("--redact needs a KEY or channel:NAME") }
                keys.insert(redaction)
            }
        }
        let file = try args.value("transcript").map {
            try TranscriptFile(path: $0, about: "Recorded by channelbridge record from the host at \(hostPath).")
        }
        let writer = try file.map { try RecordingWriter(file: $0) }
        let values = RecordedValue(redactedKeys: keys)
        let redactedChannels = channels
        let once = args.flag("once")
        let sessions = LockedValue<[ObjectIdentifier: ProxySession]>([:])
        let ended = AsyncStream<Void>.makeStream()
        let listener: RawSocketListener
        do {
            listener = try RawSocketListener(path: listenPath) { clientFD in
                // The host's directory is checked as a client checks it (wire protocol §1).
                do {
                    try SocketPath.checkDirectory(of: hostPath)
                } catch {
                    Syscalls.closeDescriptor(clientFD)
                    Output.error("channelbridge record: \(error); the client's connection was closed")
                    return
                }
                let hostFD = Syscalls.newStreamSocket()
                guard hostFD >= 0, Syscalls.connect(hostFD, to: hostAddress) == 0 else {
                    if hostFD >= 0 { Syscalls.closeDescriptor(hostFD) }
                    Syscalls.closeDescriptor(clientFD)
                    Output.error(
                        "channelbridge record: cannot reach the host at \(hostPath); the client's connection was closed"
                    )
                    return
                }
                let recording = file.flatMap { file in
                    writer.map {
                        (tap: SessionTap(file: file, values: values, redactedChannels: redactedChannels), writer: $0)
                    }
                }
                let box = LockedValue<ObjectIdentifier?>(nil)
                let session = ProxySession(clientFD: clientFD, hostFD: hostFD, recording: recording) {
                    if let id = box.withLock({ $0 }) { _ = sessions.withLock { $0.removeValue(forKey: id) } }
                    ended.continuation.yield()
                }
                let id = ObjectIdentifier(session)
                box.withLock { $0 = id }
                sessions.withLock { $0[id] = session }
                _ = session.start()
            }
        } catch {
            throw CommandFailure(ExitCode.unavailable, error.description)
        }
        let watcher = ProcessSignals.watch([ProcessSignals.interrupt, ProcessSignals.terminate])
        await watcher.waitUntilWatching()
        // Said before accepting: a client's first reply cannot overtake the ready line.
        Output.line("ready \(listenPath)")
        Output.flush()
        do {
            try listener.startAccepting()
        } catch {
            throw CommandFailure(ExitCode.unavailable, error.description)
        }
        let stopping = Task {
            for await _ in watcher.signals { break }
            ended.continuation.finish()
        }
        for await _ in ended.stream where once { break }
        stopping.cancel()
        watcher.cancel()
        listener.close()
        await listener.waitUntilClosed()
        // Sessions still open end now; each pump closes its descriptors and ends its tap.
        let open = sessions.withLock { Array($0.values) }
        for session in open { session.shutDown() }
        // Every open session was shut down, so its pumps return at once; 5 s bounds a stuck write.
        let clock = ContinuousClock(), deadline = clock.now + .seconds(5)
        while sessions.withLock({ !$0.isEmpty }), clock.now < deadline {
            try? await Task.sleep(for: .milliseconds(10))
        }
        if let file, let writer {
            // Every session has ended (or is stuck): what they queued is written, then the end.
            await writer.finish()
            // An ended session's tap has added its count to the file; one still stuck has not.
            let stuck = sessions.withLock { $0.values.compactMap(\.tap) }
            let skipped = file.skipped + stuck.reduce(0) { $0 + $1.skipped }
            if skipped > 0 {
                Output.error("channelbridge record: \(skipped) interactions or events were not recorded (see --help)")
            }
            Output.error("channelbridge record: \(file.count) interactions written")
        }
        return ExitCode.success
    }
}

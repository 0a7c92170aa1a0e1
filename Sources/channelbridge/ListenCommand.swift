import ChannelBridgeChannels
import ChannelBridgeCodec
import ChannelBridgePlatform
import ChannelBridgeSocket
import ChannelBridgeClient
import ChannelBridgeMessenger

/// `channelbridge listen CHANNEL [ARGS]`: an EventChannel's events, one per line.
enum ListenCommand: CLICommand {
    static let name = "listen"
    static let summary = "print an event channel's events, one per line"

    static let help = """
        usage: channelbridge listen CHANNEL [ARGS] [--count N] [--socket PATH] [--timeout SECONDS] [--json]

        Listens on the EventChannel CHANNEL (with ARGS, lenient TVN) and prints each event as
        canonical TVN on its own line until the stream ends (exit 0) or Ctrl-C (the stream is
        cancelled, exit 130). An error event is printed to stderr and listening goes on. A channel
        nobody owns is exit status 1: "no channel 'X' on this host" with the nearest name when the
        host's reflection does not list it.

        Options:
          --count N       cancel the stream after N events and exit 0
        \(ClientContext.optionsHelp)

        Examples:
          channelbridge listen shared_preference_app_group/changes '{"appGroup": "group.local"}'
          channelbridge listen shared_preference_app_group/changes '{"appGroup": "group.local", "keys": ["ShareKey"]}' --count 1
        """

    static func run(_ arguments: [String]) async throws -> Int32 {
        let args = try Arguments(
            arguments, valued: ClientContext.valuedOptions.union(["count"]), flags: ClientContext.flagOptions)
        if args.wantsHelp {
            Output.line(help)
            return ExitCode.success
        }
        guard (1...2).contains(args.positionals.count) else { throw UsageError("needs CHANNEL and optionally ARGS") }
        let limit = try args.value("count").map { try Arguments.positiveInt($0, "--count") }
        let listenArguments =
            try args.positionals.count == 2 ? ClientContext.value(args.positionals[1], what: "ARGS") : .null
        let context = try ClientContext(args)
        let client = try await context.connect()
        defer { client.close() }

        let interrupted = LockedValue(false)
        let listening = Task {
            var seen = 0
            let events = EventChannel(name: args.positionals[0], messenger: client.messenger)
                .receiveBroadcastStream(arguments: listenArguments)
            for try await event in events {
                switch event {
                case .success(let value):
                    Output.line(context.text(value))
                    Output.flush()
                    seen += 1
                    if let limit, seen >= limit { return }
                case .error(let error):
                    Output.error(
                        "event error \(error.code)" + (error.message.map { ": \($0)" } ?? "")
                            + (error.details == .null
                                ? "" : " details: \(TypedValueNotation.canonicalText(error.details))"))
                }
            }
        }
        // Ctrl-C cancels the stream (which sends `cancel`) and ends with status 130.
        let watcher = ProcessSignals.watch([ProcessSignals.interrupt])
        let watching = Task {
            for await _ in watcher.signals {
                interrupted.withLock { $0 = true }
                listening.cancel()
            }
        }
        defer {
            watching.cancel()
            watcher.cancel()
        }
        do {
            try await listening.value
        } catch is CancellationError {
        } catch let error as ChannelError where error.code == .notImplemented {
            // Nothing owns the channel: reflection tells a channel the host does not serve.
            throw CommandFailure(
                ExitCode.failure,
                await ListCommand.missingChannel(args.positionals[0], on: client)
                    ?? context.failure(error).message)
        } catch {
            if !interrupted.withLock({ $0 }) { throw context.failure(error) }
        }
        // Leaving the loop released the stream, which sends `cancel`; give it a moment to go out.
        try? await client.connection.messenger.ping()
        return interrupted.withLock { $0 } ? 130 : ExitCode.success
    }
}

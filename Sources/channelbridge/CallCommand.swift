import ChannelBridgeChannels
import ChannelBridgeCodec
import ChannelBridgeClient

/// `channelbridge call CHANNEL METHOD [ARGS]`: one MethodChannel call.
enum CallCommand: CLICommand {
    static let name = "call"
    static let summary = "invoke a method on a host channel and print the result"

    static let help = """
        usage: channelbridge call CHANNEL METHOD [ARGS] [--codec standard|json] [--socket PATH] [--timeout SECONDS] [--json]

        Invokes METHOD on the MethodChannel CHANNEL of a running host and prints the result as
        canonical typed value notation. ARGS is lenient TVN: bare integers are int32 (int64 when
        too big), numbers with a fraction are float64, plain objects are maps with string keys.

        Exit status: 0 success; 1 the host answered with an error or "not implemented" (for a
        channel its reflection does not list: "no channel 'X' on this host", with the nearest name;
        for a method the channel's listed methods lack: "no method 'M' on channel 'X'", with the
        nearest one);
        64 usage; 65 ARGS is not valid TVN; 69 host unreachable or connection lost; 75 the host
        did not answer within the timeout (it may be stopped or overloaded).

        Each command is a session of its own: what a call chooses for its session (setAppGroup)
        is gone for the next command. Run calls that belong together with 'channelbridge session'.

        Options:
          --codec NAME    the channel's method codec: standard (default) or json
        \(ClientContext.optionsHelp)

        Examples:
          channelbridge call channelbridge/extension getInputItems
          channelbridge call shared_preference_app_group getString '{"key": "ShareKey"}'
          channelbridge call shared_preference_app_group setInt '{"key": "n", "value": 3}'
        """

    static func run(_ arguments: [String]) async throws -> Int32 {
        let args = try Arguments(
            arguments, valued: ClientContext.valuedOptions.union(["codec"]), flags: ClientContext.flagOptions)
        if args.wantsHelp {
            Output.line(help)
            return ExitCode.success
        }
        guard args.positionals.count >= 2 else { throw UsageError("needs CHANNEL and METHOD") }
        guard args.positionals.count <= 3 else { throw UsageError("unexpected argument '\(args.positionals[3])'") }
        let codecName = args.value("codec") ?? "standard"
        guard codecName == "standard" || codecName == "json" else {
            throw UsageError("unknown codec '\(codecName)'; use standard or json")
        }
        let channel = args.positionals[0], method = args.positionals[1]
        let arguments = try args.positionals.count == 3 ? ClientContext.value(args.positionals[2], what: "ARGS") : .null
        let context = try ClientContext(args)
        let result = try await context.withClient { client in
            do {
                return codecName == "json"
                    ? try await client.invokeMethod(
                        method, onChannel: channel, arguments: arguments, codec: JSONMethodCodec())
                    : try await client.invokeMethod(method, onChannel: channel, arguments: arguments)
            } catch let error as ChannelError where error.code == .notImplemented {
                throw await notImplemented(error, channel: channel, method: method, client: client, context: context)
            } catch {
                var failure = context.failure(error)
                if let hint = hint(for: error, method: method, arguments: arguments) {
                    failure.message += "\nhint: " + hint
                }
                throw failure
            }
        }
        Output.line(context.text(result))
        return ExitCode.success
    }

    /// A null reply: when the host's reflection lists no `channel`, that is what the caller is
    /// told, with the nearest name; when it lists the channel with its methods and `method` is not
    /// among them, that, with the nearest method; otherwise (a listed method, a channel that does
    /// not list its methods, no reflection) the not-implemented line. The exit status is not
    /// implemented's either way. The host answers null on every channel it does not serve
    /// (Flutter's semantics), so only the client can tell these apart.
    static func notImplemented(
        _ error: ChannelError, channel: String, method: String, client: ExtensionHostClient,
        context: ClientContext
    ) async -> CommandFailure {
        let failure = context.failure(error)
        guard let channels = await ListCommand.channelsListed(by: client) else { return failure }
        guard let served = channels.first(where: { $0.name == channel }) else {
            return CommandFailure(failure.status, ListCommand.noChannel(channel, in: channels))
        }
        guard let methods = served.methods, !methods.contains(where: { $0.name == method }) else { return failure }
        return CommandFailure(failure.status, ListCommand.noMethod(method, on: channel, in: methods))
    }

    /// Lenient TVN reads a bare `3` as an int32, which a `setDouble` refuses (Dart always sends a
    /// double): say how to write a double.
    static func hint(for error: any Error, method: String, arguments: StandardValue) -> String? {
        guard let error = error as? MethodError, error.code == "INVALID_ARGUMENTS", method == "setDouble" else {
            return nil
        }
        switch arguments["value"] {
        case .int32(let int)?: return doubleHint(String(int))
        case .int64(let int)?: return doubleHint(String(int))
        default: return nil
        }
    }

    private static func doubleHint(_ int: String) -> String {
        "a bare \(int) is an int in typed value notation; write \(int).0 or {\"float64\": \(int)} for a double, "
            + "or use 'channelbridge prefs set KEY \(int) --type double'"
    }
}

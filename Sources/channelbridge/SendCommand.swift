import ChannelBridgeChannels
import ChannelBridgeCodec
import ChannelBridgeClient

/// `channelbridge send CHANNEL MESSAGE`: one BasicMessageChannel message and its reply.
enum SendCommand: CLICommand {
    static let name = "send"
    static let summary = "send a message on a BasicMessageChannel and print the reply"

    static let help = """
        usage: channelbridge send CHANNEL MESSAGE [--codec standard|json|string|binary] [--socket PATH]
               [--timeout SECONDS] [--json]

        Sends MESSAGE on the BasicMessageChannel CHANNEL and prints the reply. MESSAGE is lenient
        TVN for standard and json, the text itself for string, and hex for binary; the reply is
        printed the same way (--json: as plain JSON, for standard and json).

        A null reply means no handler took the message (or its handler answered nothing, as a
        Flutter handler returning null does): it is reported like call's "not implemented", or,
        on a channel the host's reflection does not list, as "no channel 'X' on this host" with
        the nearest name.

        Exit status: 0 a reply; 1 a null reply or a failed handler; 64 usage; 65 MESSAGE is not
        valid; 69 host unreachable or connection lost; 75 no answer within the timeout.

        Options:
          --codec NAME    standard (default), json, string or binary
        \(ClientContext.optionsHelp)

        Examples:
          channelbridge send channelbridge/echo 0301000000 --codec binary
          channelbridge send my/channel '{"hello": "world"}'
        """

    static func run(_ arguments: [String]) async throws -> Int32 {
        let args = try Arguments(
            arguments, valued: ClientContext.valuedOptions.union(["codec"]), flags: ClientContext.flagOptions)
        if args.wantsHelp {
            Output.line(help)
            return ExitCode.success
        }
        guard args.positionals.count == 2 else { throw UsageError("needs CHANNEL and MESSAGE") }
        let channel = args.positionals[0], text = args.positionals[1]
        let context = try ClientContext(args)
        let codec = args.value("codec") ?? "standard"
        if context.json, codec == "string" || codec == "binary" {
            throw UsageError("--json goes with --codec standard or json (a \(codec) reply is printed as it is)")
        }
        switch codec {
        case "standard":
            let message = try ClientContext.value(text, what: "MESSAGE")
            Output.line(context.text(try await send(StandardMessageCodec(), channel, message, context)))
        case "json":
            let message = try ClientContext.value(text, what: "MESSAGE")
            Output.line(context.text(try await send(JSONMessageCodec(), channel, message, context)))
        case "string":
            Output.line(try await send(StringCodec(), channel, text, context))
        case "binary":
            let bytes: [UInt8]
            do {
                bytes = try Hex.decode(text)
            } catch {
                throw CommandFailure(ExitCode.dataError, "MESSAGE is not hex: \(error.message)")
            }
            Output.line(Hex.encode(try await send(BinaryCodec(), channel, bytes, context)))
        case let other:
            throw UsageError("unknown codec '\(other)'; use standard, json, string or binary")
        }
        return ExitCode.success
    }

    /// The reply; a null reply (no handler, as a `call` to an unknown method gets) fails with status
    /// 1, saying "no channel" with the nearest name when the host's reflection does not list it.
    static func send<Codec: MessageCodec>(
        _ codec: Codec, _ channel: String, _ message: Codec.Message,
        _ context: ClientContext
    ) async throws -> Codec.Message {
        try await context.withClient { client in
            let reply = try await BasicMessageChannel(name: channel, messenger: client.messenger, codec: codec)
                .send(message, timeout: context.callTimeout)
            if let reply { return reply }
            // The host answers null on a channel it does not serve, as Flutter does: reflection tells.
            throw CommandFailure(
                ExitCode.failure,
                await ListCommand.missingChannel(channel, on: client)
                    ?? "not implemented: no handler answered the message on channel \(channel) (null reply)")
        }
    }
}

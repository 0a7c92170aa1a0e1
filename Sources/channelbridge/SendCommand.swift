import ChannelBridgeChannels
import ChannelBridgeCodec

/// `channelbridge send CHANNEL MESSAGE`: one BasicMessageChannel message and its reply.
enum SendCommand: CLICommand {
    static let name = "send"
    static let summary = "send a message on a BasicMessageChannel and print the reply"

    static let help = """
        usage: channelbridge send CHANNEL MESSAGE [--codec standard|json|string|binary] [--socket PATH] [--json]

        Sends MESSAGE on the BasicMessageChannel CHANNEL and prints the reply ('null' for a null
        reply). MESSAGE is lenient TVN for standard and json, the text itself for string, and hex
        for binary; the reply is printed the same way.

        Options:
          --codec NAME    standard (default), json, string or binary
        \(ClientContext.optionsHelp)

        Examples:
          channelbridge send channelbridge/echo 0301000000 --codec binary
          channelbridge send my/channel '{"hello": "world"}'
        """

    static func run(_ arguments: [String]) async throws -> Int32 {
        let args = try Arguments(arguments, valued: ClientContext.valuedOptions.union(["codec"]), flags: ClientContext.flagOptions)
        if args.wantsHelp {
            Output.line(help)
            return ExitCode.success
        }
        guard args.positionals.count == 2 else { throw UsageError("needs CHANNEL and MESSAGE") }
        let channel = args.positionals[0], text = args.positionals[1]
        let context = ClientContext(args)
        switch args.value("codec") ?? "standard" {
        case "standard":
            let message = try ClientContext.value(text, what: "MESSAGE")
            let reply = try await send(StandardMessageCodec(), channel, message, context)
            Output.line(reply.map(context.text) ?? "null")
        case "json":
            let message = try ClientContext.value(text, what: "MESSAGE")
            let reply = try await send(JSONMessageCodec(), channel, message, context)
            Output.line(reply.map(context.text) ?? "null")
        case "string":
            Output.line(try await send(StringCodec(), channel, text, context) ?? "null")
        case "binary":
            let bytes: [UInt8]
            do {
                bytes = try Hex.decode(text)
            } catch {
                throw CommandFailure(ExitCode.dataError, "MESSAGE is not hex: \(error.message)")
            }
            Output.line(try await send(BinaryCodec(), channel, bytes, context).map(Hex.encode) ?? "null")
        case let other:
            throw UsageError("unknown codec '\(other)'; use standard, json, string or binary")
        }
        return ExitCode.success
    }

    static func send<Codec: MessageCodec>(_ codec: Codec, _ channel: String, _ message: Codec.Message,
                                          _ context: ClientContext) async throws -> Codec.Message? {
        try await context.withClient { client in
            try await BasicMessageChannel(name: channel, messenger: client.messenger, codec: codec).send(message)
        }
    }
}

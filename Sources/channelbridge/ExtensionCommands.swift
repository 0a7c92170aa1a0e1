import ChannelBridgeCodec
import ChannelBridgeClient

/// `channelbridge items`: the host's input items.
enum ItemsCommand: CLICommand {
    static let name = "items"
    static let summary = "print the host's input items"
    static let help = """
        usage: channelbridge items [--socket PATH] [--timeout SECONDS] [--json]

        Prints the extension's input items (channelbridge/extension getInputItems) as canonical TVN.
        \(ClientContext.optionsHelp)

        Example:
          channelbridge items --json
        """

    static func run(_ arguments: [String]) async throws -> Int32 {
        let args = try Arguments(arguments, valued: ClientContext.valuedOptions, flags: ClientContext.flagOptions)
        if args.wantsHelp {
            Output.line(help)
            return ExitCode.success
        }
        if let extra = args.positionals.first { throw UsageError("unexpected argument '\(extra)'") }
        let context = try ClientContext(args)
        Output.line(context.text(try await context.withClient { try await $0.rawItems() }))
        return ExitCode.success
    }
}

/// `channelbridge exit [ITEMS]`: completes the extension request.
enum ExitCommand: CLICommand {
    static let name = "exit"
    static let summary = "complete the extension request (the host exits 0)"
    static let help = """
        usage: channelbridge exit [ITEMS] [--socket PATH] [--timeout SECONDS]

        Calls exit on the extension channel, returning ITEMS (lenient TVN, optional) to the host,
        which then completes the request and exits 0. Prints nothing.
        \(ClientContext.socketHelp)

        Examples:
          channelbridge exit
          channelbridge exit '[{"title": "done"}]'
        """

    static func run(_ arguments: [String]) async throws -> Int32 {
        let args = try Arguments(arguments, valued: ClientContext.valuedOptions)
        if args.wantsHelp {
            Output.line(help)
            return ExitCode.success
        }
        guard args.positionals.count <= 1 else { throw UsageError("unexpected argument '\(args.positionals[1])'") }
        let items = try args.positionals.first.map { try ClientContext.value($0, what: "ITEMS") } ?? .null
        try await ClientContext(args).withClient { try await $0.exit(returning: items) }
        return ExitCode.success
    }
}

/// `channelbridge cancel CODE [MESSAGE] [DETAILS]`: cancels the extension request.
enum CancelCommand: CLICommand {
    static let name = "cancel"
    static let summary = "cancel the extension request (the host exits 2)"
    static let help = """
        usage: channelbridge cancel CODE [MESSAGE] [DETAILS] [--socket PATH] [--timeout SECONDS]

        Calls cancel on the extension channel with an error CODE, an optional MESSAGE and optional
        DETAILS (lenient TVN); the host then exits 2 and reports them in its completion record.
        Prints nothing.
        \(ClientContext.socketHelp)

        Example:
          channelbridge cancel USER_CANCELLED "closed by the user"
        """

    static func run(_ arguments: [String]) async throws -> Int32 {
        let args = try Arguments(arguments, valued: ClientContext.valuedOptions)
        if args.wantsHelp {
            Output.line(help)
            return ExitCode.success
        }
        guard (1...3).contains(args.positionals.count) else {
            throw UsageError("needs CODE, and optionally MESSAGE and DETAILS")
        }
        let details =
            try args.positionals.count == 3 ? ClientContext.value(args.positionals[2], what: "DETAILS") : .null
        let message = args.positionals.count >= 2 ? args.positionals[1] : nil
        try await ClientContext(args).withClient {
            try await $0.cancel(code: args.positionals[0], message: message, details: details)
        }
        return ExitCode.success
    }
}

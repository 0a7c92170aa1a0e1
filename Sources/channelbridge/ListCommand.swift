import ChannelBridgeChannels
import ChannelBridgeClient
import ChannelBridgeCodec

/// `channelbridge list [CHANNEL]`: the channels a host serves, from its reflection channel.
enum ListCommand: CLICommand {
    static let name = "list"
    static let summary = "list the channels a host serves, with their methods"

    static let help = """
        usage: channelbridge list [CHANNEL] [--socket PATH] [--timeout SECONDS] [--json]

        Asks the host's reflection channel (channelbridge/reflection, Protocol/reflection.md) for
        the channels this session serves: each with its kind (method, message or event channel),
        codec, description, and the names of its methods where the channel lists them. With
        CHANNEL, that channel only, one method a line with its arguments and result.
        The tables of the stock host's channels are in Protocol/extension-host.md §3 to §5.

        Exit status: 0 success; 1 no such channel, or the host serves no reflection; 64 usage;
        69 host unreachable; 75 the host did not answer within the timeout.
        \(ClientContext.optionsHelp)

        Examples:
          channelbridge list
          channelbridge list shared_preference_app_group
          channelbridge describe shared_preference_app_group getInt
        """

    static func run(_ arguments: [String]) async throws -> Int32 {
        let args = try Arguments(arguments, valued: ClientContext.valuedOptions, flags: ClientContext.flagOptions)
        if args.wantsHelp {
            Output.line(help)
            return ExitCode.success
        }
        guard args.positionals.count <= 1 else { throw UsageError("unexpected argument '\(args.positionals[1])'") }
        let context = try ClientContext(args)
        let channels = try await context.withClient { try await channelsServed(by: $0) }
        guard let name = args.positionals.first else {
            if context.json { Output.line(context.text(.list(channels.map(\.standardValue)))); return ExitCode.success }
            for channel in channels {
                Output.line(heading(channel))
                if let methods = channel.methods {
                    Output.line("  methods: " + methods.map(\.name).joined(separator: ", "))
                }
            }
            return ExitCode.success
        }
        let channel = try find(name, in: channels)
        if context.json { Output.line(context.text(channel.standardValue)); return ExitCode.success }
        Output.line(heading(channel))
        guard let methods = channel.methods else {
            if channel.kind == .method { Output.line("  (the channel does not list its methods)") }
            return ExitCode.success
        }
        for method in methods { Output.line("  " + line(method)) }
        return ExitCode.success
    }

    /// The host's channels; a host without reflection is exit status 1, saying so.
    static func channelsServed(by client: ExtensionHostClient) async throws -> [ChannelDescription] {
        do {
            return try await client.listChannels()
        } catch let error as ChannelError where error.code == .notImplemented {
            throw CommandFailure(
                ExitCode.failure,
                "the host serves no reflection (\(ChannelCatalog.reflectionChannel)); "
                    + "its channels are in its documentation")
        }
    }

    /// The host's channels for a message that got no answer: `nil` when the host serves no
    /// reflection or does not answer it, so that the caller keeps the error it has.
    static func channelsListed(by client: ExtensionHostClient) async -> [ChannelDescription]? {
        try? await client.listChannels()
    }

    /// `noChannel(_:in:)` when the host's reflection does not list `name`; `nil` when it lists it
    /// or serves no reflection. For a message or a `listen` that found no handler.
    static func missingChannel(_ name: String, on client: ExtensionHostClient) async -> String? {
        guard let channels = await channelsListed(by: client), !channels.contains(where: { $0.name == name }) else {
            return nil
        }
        return noChannel(name, in: channels)
    }

    /// The channel named `name`, or a failure naming the nearest one.
    static func find(_ name: String, in channels: [ChannelDescription]) throws -> ChannelDescription {
        if let channel = channels.first(where: { $0.name == name }) { return channel }
        throw CommandFailure(ExitCode.failure, noChannel(name, in: channels))
    }

    /// "no channel 'X' on this host; did you mean 'Y'?", or where to look when nothing is near.
    static func noChannel(_ name: String, in channels: [ChannelDescription]) -> String {
        if let close = Suggestion.closest(to: name, in: channels.map(\.name)) {
            return "no channel '\(name)' on this host; did you mean '\(close)'?"
        }
        return "no channel '\(name)' on this host; run 'channelbridge list' for the channels it serves"
    }

    /// "no method 'M' on channel 'X'; did you mean 'N'?", or where to look when nothing is near.
    static func noMethod(_ method: String, on channel: String, in methods: [MethodDescription]) -> String {
        let near = Suggestion.closest(to: method, in: methods.map(\.name)).map { "did you mean '\($0)'?" }
        return "no method '\(method)' on channel '\(channel)'; "
            + (near ?? "run 'channelbridge list \(channel)' for its methods")
    }

    /// `NAME (KIND channel, CODEC codec): DESCRIPTION`.
    static func heading(_ channel: ChannelDescription) -> String {
        "\(channel.name) (\(channel.kind.rawValue) channel, \(channel.codec) codec)"
            + (channel.summary.map { ": " + $0 } ?? "")
    }

    /// `METHOD: SUMMARY`, or the name alone.
    static func line(_ method: MethodDescription) -> String {
        method.name + (method.summary.map { ": " + $0 } ?? "")
    }
}

import ChannelBridgeChannels
import ChannelBridgeClient
import ChannelBridgeCodec

/// `channelbridge describe CHANNEL METHOD`: one method of a host channel, from its reflection channel.
enum DescribeCommand: CLICommand {
    static let name = "describe"
    static let summary = "print one method of a host channel: its arguments and result"

    static let help = """
        usage: channelbridge describe CHANNEL METHOD [--socket PATH] [--timeout SECONDS] [--json]

        Prints METHOD of CHANNEL as the host's reflection channel (channelbridge/reflection)
        describes it: the channel, then the method's arguments and result in one line.

        Exit status: 0 success; 1 no such channel or method, or the host serves no reflection;
        64 usage; 69 host unreachable; 75 the host did not answer within the timeout.
        \(ClientContext.optionsHelp)

        Example:
          channelbridge describe shared_preference_app_group getInt
        """

    static func run(_ arguments: [String]) async throws -> Int32 {
        let args = try Arguments(arguments, valued: ClientContext.valuedOptions, flags: ClientContext.flagOptions)
        if args.wantsHelp {
            Output.line(help)
            return ExitCode.success
        }
        guard args.positionals.count >= 2 else { throw UsageError("needs CHANNEL and METHOD") }
        guard args.positionals.count == 2 else { throw UsageError("unexpected argument '\(args.positionals[2])'") }
        let (name, methodName) = (args.positionals[0], args.positionals[1])
        let context = try ClientContext(args)
        let channels = try await context.withClient { try await ListCommand.channelsServed(by: $0) }
        let channel = try ListCommand.find(name, in: channels)
        guard let methods = channel.methods else {
            throw CommandFailure(ExitCode.failure, "channel '\(name)' does not list its methods")
        }
        guard let method = methods.first(where: { $0.name == methodName }) else {
            throw CommandFailure(ExitCode.failure, ListCommand.noMethod(methodName, on: name, in: methods))
        }
        if context.json {
            Output.line(
                context.text([
                    "channel": .string(channel.name), "method": .string(method.name),
                    "description": method.summary.map { .string($0) } ?? .null,
                ]))
            return ExitCode.success
        }
        Output.line(ListCommand.heading(channel))
        Output.line("  " + ListCommand.line(method))
        return ExitCode.success
    }
}

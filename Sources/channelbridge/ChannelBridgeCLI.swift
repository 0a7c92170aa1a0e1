import ChannelBridgePlatform
import ChannelBridgeSocket
import Foundation

/// `channelbridge`: the command-line face of ChannelBridge. Each subcommand lives in its own file.
@main
struct ChannelBridgeCLI {
    static let commands: [any CLICommand.Type] = [
        CallCommand.self, SessionCommand.self, SendCommand.self, ListenCommand.self, ItemsCommand.self, ExitCommand.self, CancelCommand.self,
        PrefsCommand.self, DemoCommand.self,
        CodecCommand.self, ConformanceCommand.self, BenchCommand.self, StressCommand.self,
        PigeonCommand.self,
    ]

    static let help = """
        usage: channelbridge <command> [options]

        Commands:
        \(commands.map { "  " + $0.name.padding(toLength: 12, withPad: " ", startingAt: 0) + $0.summary }.joined(separator: "\n"))

        Run 'channelbridge <command> --help' for a command's options and examples.

        Commands that talk to a host take --socket PATH and --timeout SECONDS (a decimal > 0, also
        accepted before the command; default $CHANNELBRIDGE_TIMEOUT, else 5 s to connect and 30 s
        per call), and exit 0 on success, 1 on an error from the host, 64 on a usage error, 65 on
        bad input, 69 when no host is listening and 75 when the host did not answer in time (it
        may be stopped or overloaded).
        """

    /// `arguments` with a leading `--timeout SECONDS` (or `--timeout=SECONDS`), which may come
    /// before the command name, moved after it, where the command parses it.
    static func commandFirst(_ arguments: [String]) -> [String] {
        guard let first = arguments.first else { return arguments }
        if first.hasPrefix("--timeout=") { return commandFirst(Array(arguments.dropFirst())) + [first] }
        if first == "--timeout", arguments.count >= 3 {
            return commandFirst(Array(arguments.dropFirst(2))) + Array(arguments.prefix(2))
        }
        return arguments
    }

    static func main() async {
        // A peer or host that goes away must surface as an error on write, not kill this process.
        ProcessSignals.ignoreBrokenPipes()
        // Bulk transfers (`send`, `bench`) reuse large buffers instead of faulting fresh pages in.
        AllocatorTuning.retainLargeAllocations()
        let arguments = Array(CommandLine.arguments.dropFirst())
        let status = await run(arguments)
        Output.flush()
        ProcessExit.normally(status)
    }

    static func run(_ arguments: [String]) async -> Int32 {
        let arguments = commandFirst(arguments)
        guard let first = arguments.first else {
            Output.error(help)
            return ExitCode.usage
        }
        if first == "--help" || first == "-h" || first == "help" {
            Output.line(help)
            return ExitCode.success
        }
        if first == HostCommand.name {
            // Not listed: the extension host itself, for `channelbridge demo` when no `extension-host` is beside
            // this binary (one copied on its own; SwiftPM builds it with `channelbridge`, which depends on it).
            return await HostCommand.run(Array(arguments.dropFirst()))
        }
        guard let command = commands.first(where: { $0.name == first }) else {
            Output.error("channelbridge: unknown command '\(first)'\n\n\(help)")
            return ExitCode.usage
        }
        do {
            return try await command.run(Array(arguments.dropFirst()))
        } catch let failure as CommandFailure {
            Output.error("channelbridge \(command.name): \(failure.message)")
            return failure.status
        } catch let error as UsageError {
            Output.error("channelbridge \(command.name): \(error.message)\nRun 'channelbridge \(command.name) --help' for usage.")
            return ExitCode.usage
        } catch {
            Output.error("channelbridge \(command.name): \(error)")
            return ExitCode.failure
        }
    }
}

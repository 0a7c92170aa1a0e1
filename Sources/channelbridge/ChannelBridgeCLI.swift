import ChannelBridgePlatform
import ChannelBridgeSocket
import Foundation

/// `channelbridge`: the command-line face of ChannelBridge. Each subcommand lives in its own file.
@main
struct ChannelBridgeCLI {
    static let commands: [any CLICommand.Type] = [
        CallCommand.self, ListCommand.self, DescribeCommand.self, SessionCommand.self, SendCommand.self,
        ListenCommand.self, ItemsCommand.self, ExitCommand.self, CancelCommand.self,
        PrefsCommand.self, DemoCommand.self,
        CodecCommand.self, ConformanceCommand.self, StressCommand.self,
        PigeonCommand.self, MockCommand.self, VerifyCommand.self, RecordCommand.self,
    ]

    static let help = """
        usage: channelbridge <command> [options]

        Commands:
        \(commands.map { "  " + $0.name.padding(toLength: 12, withPad: " ", startingAt: 0) + $0.summary }.joined(separator: "\n"))

        Run 'channelbridge <command> --help' for a command's options and examples.

        Commands that talk to a host take --socket PATH, --timeout SECONDS (a decimal > 0; default
        $CHANNELBRIDGE_TIMEOUT, else 5 s to connect and 30 s per call) and --json, also before the
        command. Connecting waits for a host that is still starting (no socket file yet) until the
        connect timeout. They exit 0 on success, 1 on an error from the host, 64 on a usage
        error, 65 on bad input, 69 when no host is listening and 75 when the host did not answer
        in time (it may be stopped or overloaded).
        """

    /// What `channelbridge bench` says: where the benchmarks went.
    static let movedBench = """
        channelbridge: 'bench' is not a command; the benchmarks are channelbridge-bench, in the Benchmarks/ package:
          swift run -c release --package-path Benchmarks channelbridge-bench [scenario ...] [--json]
        Connection times to a running host: channelbridge stress connect --socket PATH
        """

    /// The options every command that talks to a host takes, which may also come before the
    /// command's name: those with a value, and the flag.
    static let leadingValued: Set<String> = ["socket", "timeout"]
    static let leadingFlags: Set<String> = ["json"]

    /// `arguments` with leading `--socket PATH`, `--timeout SECONDS` (or `--NAME=VALUE`) and
    /// `--json` moved after the command's other arguments, where the command parses them.
    static func commandFirst(_ arguments: [String]) -> [String] {
        var leading: [String] = []
        var rest = arguments[...]
        while let first = rest.first, first.hasPrefix("--") {
            let name = String(first.dropFirst(2).prefix(while: { $0 != "=" }))
            if leadingValued.contains(name) {
                if first.contains("=") {
                    leading.append(first)
                    rest = rest.dropFirst()
                } else if rest.count >= 2 {
                    leading += rest.prefix(2)
                    rest = rest.dropFirst(2)
                } else {
                    break
                }
            } else if leadingFlags.contains(name), !first.contains("=") {
                leading.append(first)
                rest = rest.dropFirst()
            } else {
                break
            }
        }
        return Array(rest) + leading
    }

    /// One line for a first word that is no command: a close command (or leading option) to
    /// use instead, else where to look.
    static func unknownCommand(_ word: String) -> String {
        if word.hasPrefix("-") {
            let name = String(word.prefix(while: { $0 != "=" }))
            let known = (leadingValued.union(leadingFlags).sorted() + ["help"]).map { "--" + $0 }
            if known.contains(name) {
                return "channelbridge: \(name) needs a command after it; run 'channelbridge --help' for the commands"
            }
            if let close = Suggestion.closest(to: name, in: known) {
                return "channelbridge: unknown option \(name); did you mean \(close)?"
            }
            return
                "channelbridge: unknown option \(name); run 'channelbridge --help' for the commands and their options"
        }
        let names = commands.map { $0.name } + ["help"]
        if let close = Suggestion.closest(to: word, in: names) {
            return "channelbridge: unknown command '\(word)'; did you mean '\(close)'?"
        }
        return "channelbridge: unknown command '\(word)'; run 'channelbridge --help' for the commands"
    }

    static func main() async {
        // A peer or host that goes away must surface as an error on write, not kill this process.
        ProcessSignals.ignoreBrokenPipes()
        // Bulk transfers (`send`) reuse large buffers instead of faulting fresh pages in.
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
        if first == "bench" {
            // Not a command: the benchmarks are a package of their own, built on this one's products.
            Output.error(movedBench)
            return ExitCode.usage
        }
        guard let command = commands.first(where: { $0.name == first }) else {
            Output.error(unknownCommand(first))
            return ExitCode.usage
        }
        do {
            return try await command.run(Array(arguments.dropFirst()))
        } catch let failure as CommandFailure {
            Output.error("channelbridge \(command.name): \(failure.message)")
            return failure.status
        } catch let error as UsageError where error.saysWhatToDo {
            Output.error("channelbridge \(command.name): \(error.message)")
            return ExitCode.usage
        } catch let error as UsageError {
            Output.error(
                "channelbridge \(command.name): \(error.message)\nRun 'channelbridge \(command.name) --help' for usage."
            )
            return ExitCode.usage
        } catch {
            Output.error("channelbridge \(command.name): \(error)")
            return ExitCode.failure
        }
    }
}

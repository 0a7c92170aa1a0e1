import ChannelBridgeBench
import Foundation

/// `channelbridge bench [scenario ...] [--json] [--repeat N] [--scale F]`: each scenario against its
/// baseline, interleaved, reported as medians and per-repetition ratios. A thin shell over
/// `ChannelBridgeBench` (`BenchSuite`): this parses the command line.
enum BenchCommand: CLICommand {
    static let name = "bench"
    static let summary = "measure scenarios against a raw baseline in the same run"

    static let scenarios = BenchSuite.scenarios

    static let help = """
        usage: channelbridge bench [scenario ...] [--json] [--repeat N] [--scale F] [--no-pin]
                            [--pool-executor]
               channelbridge bench connect --socket PATH [--connections N] [--spacing MS] [--json]

        Scenarios (all of them when none is named):
        \(scenarios.map { "  " + $0.name.padded(10) + $0.summary }.joined(separator: "\n"))

        Each scenario and its baseline run interleaved (A B A B …) N times (default 5). The table
        shows the median of the per-repetition ratios ours/baseline, then the median and min–max of
        each figure on this machine. Socket scenarios run the other side in a separate process:
        'channelbridge bench serve' for ours, the C program channelbridge-raw-bench for the baselines.

        'channelbridge bench connect' times new connections to a host already running
        ('channelbridge bench connect --help').

        Options:
          --json       print {"scenarios": {"<name>": {"ours": {...}, "baseline": {...}, "ratio": {...}}}}
          --repeat N   repetitions (default 5)
          --scale F    multiply every call, event, round and iteration count by F (default 1);
                       e.g. --scale 0.001 runs everything once at a tiny size
          --no-pin     run the rtt pairs where the scheduler puts them; by default every process
                       of both pairs runs on CPU 0, because a wake-up across CPUs on these virtual
                       machines costs 10–50 µs and varies from run to run
          --pool-executor  resume the calling tasks of rtt, pipeline and bulk on Swift's global
                       executor; by default they prefer the connection's reader thread
                       (SocketConnection.Options.runsTasksOnReaderThread)

        Build in release mode for meaningful figures:
          swift run -c release channelbridge bench --repeat 3
        """

    static func run(_ arguments: [String]) async throws -> Int32 {
        if arguments.first == "serve" { return try await serve(Array(arguments.dropFirst())) }
        if arguments.first == "connect" { return try await benchConnect(Array(arguments.dropFirst())) }
        let args = try Arguments(arguments, valued: ["repeat", "scale"], flags: ["json", "no-pin", "pool-executor"])
        if args.wantsHelp {
            Output.line(help)
            return ExitCode.success
        }
        let repetitions = try positiveInt(args.value("repeat") ?? "5", "--repeat")
        guard let scale = Double(args.value("scale") ?? "1"), scale > 0, scale.isFinite else {
            throw UsageError("--scale takes a positive number")
        }
        var chosen: [BenchSuite.Scenario] = []
        for name in args.positionals {
            guard let scenario = scenarios.first(where: { $0.name == name }) else {
                throw UsageError("unknown scenario '\(name)'; known: \(scenarios.map(\.name).joined(separator: ", "))")
            }
            if !chosen.contains(where: { $0.name == name }) { chosen.append(scenario) }
        }
        if chosen.isEmpty { chosen = scenarios }
        let settings = BenchSettings(
            repetitions: repetitions, scale: scale, pinRoundTrips: !args.flag("no-pin"),
            readerExecutor: !args.flag("pool-executor"))
        try await BenchSuite.run(chosen, settings: settings, json: args.flag("json"))
        return ExitCode.success
    }

    static let serveHelp = """
        usage: channelbridge bench serve --socket PATH

        Serves the benchmark's channels on PATH until stdin ends (used by 'channelbridge bench' itself).
        """

    /// `channelbridge bench serve --socket PATH` (hidden): the other process of the socket scenarios.
    static func serve(_ arguments: [String]) async throws -> Int32 {
        let args = try Arguments(arguments, valued: ["socket"])
        if args.wantsHelp {
            Output.line(serveHelp)
            return ExitCode.success
        }
        guard let path = args.value("socket") else { throw UsageError("serve needs --socket PATH") }
        guard args.positionals.isEmpty else { throw UsageError("unexpected argument '\(args.positionals[0])'") }
        try await BenchServer.serve(path: path)
        return ExitCode.success
    }

    static func positiveInt(_ text: String, _ option: String) throws -> Int {
        guard let value = Int(text), value > 0 else { throw UsageError("\(option) takes a positive whole number") }
        return value
    }
}

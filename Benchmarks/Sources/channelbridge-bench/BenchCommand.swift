import ChannelBridgeBench

/// `channelbridge-bench [scenario ...] [--json] [--repeat N] [--scale F]`: each scenario against its
/// baseline, interleaved, reported as medians and per-repetition ratios. A thin shell over
/// `ChannelBridgeBench` (`BenchSuite`): this parses the command line.
@main
enum BenchCommand {
    static let scenarios = BenchSuite.scenarios

    static let help = """
        usage: channelbridge-bench [scenario ...] [--json] [--repeat N] [--scale F] [--no-pin]
                                   [--pool-executor]
               channelbridge-bench serve --socket PATH

        Scenarios (all of them when none is named):
        \(scenarios.map { "  " + $0.name.padded(10) + $0.summary }.joined(separator: "\n"))

        Each scenario and its baseline run interleaved (A B A B …) N times (default 5). The table
        shows the median of the per-repetition ratios ours/baseline, then the median and min–max of
        each figure on this machine. Socket scenarios run the other side in a separate process:
        'channelbridge-bench serve' for ours, the C program channelbridge-raw-bench for the baselines.

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

        Build in release mode for meaningful figures (from the repository's root):
          swift run -c release --package-path Benchmarks channelbridge-bench --repeat 3
        """

    static func main() async {
        // A peer that goes away must surface as an error on write, not kill this process; bulk
        // transfers reuse large buffers instead of faulting fresh pages in (as `channelbridge` does).
        BenchSystem.ignoreBrokenPipes()
        BenchSystem.retainLargeAllocations()
        let status = await run(Array(CommandLine.arguments.dropFirst()))
        BenchOutput.flush()
        BenchSystem.exit(status)
    }

    /// Runs the command line `arguments`; the exit status: 0, 1 on a failed run, 64 on a usage error.
    static func run(_ arguments: [String]) async -> Int32 {
        do {
            if arguments.first == "serve" { return try await serve(Array(arguments.dropFirst())) }
            return try await bench(arguments)
        } catch let error as UsageError {
            BenchOutput.error(
                "channelbridge-bench: \(error.message)"
                    + (error.saysWhatToDo ? "" : "\nRun 'channelbridge-bench --help' for usage."))
            return 64
        } catch {
            BenchOutput.error("channelbridge-bench: \(error)")
            return 1
        }
    }

    static func bench(_ arguments: [String]) async throws -> Int32 {
        let args = try BenchArguments(
            arguments, valued: ["repeat", "scale"], flags: ["json", "no-pin", "pool-executor"])
        if args.wantsHelp {
            BenchOutput.line(help)
            return 0
        }
        let repetitions = try BenchArguments.positiveInt(args.value("repeat") ?? "5", "--repeat")
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
        return 0
    }

    static let serveHelp = """
        usage: channelbridge-bench serve --socket PATH

        Serves the benchmark's channels on PATH until stdin ends (used by 'channelbridge-bench' itself).
        """

    /// `channelbridge-bench serve --socket PATH`: the other process of the socket scenarios.
    static func serve(_ arguments: [String]) async throws -> Int32 {
        let args = try BenchArguments(arguments, valued: ["socket"])
        if args.wantsHelp {
            BenchOutput.line(serveHelp)
            return 0
        }
        guard let path = args.value("socket") else { throw UsageError("serve needs --socket PATH") }
        guard args.positionals.isEmpty else { throw UsageError("unexpected argument '\(args.positionals[0])'") }
        try await BenchServer.serve(path: path)
        return 0
    }
}

import Foundation

/// `channelbridge bench [scenario ...] [--json] [--repeat N] [--scale F]`: each scenario against its
/// baseline, interleaved, reported as medians and per-repetition ratios.
enum BenchCommand: CLICommand {
    static let name = "bench"
    static let summary = "measure scenarios against a raw baseline in the same run"

    struct Scenario: Sendable {
        var name: String
        var summary: String
        var run: @Sendable (BenchSettings) async throws -> ScenarioResult
    }

    static let scenarios: [Scenario] = [
        Scenario(name: "rtt", summary: "invokeMethod round trips, one at a time, to another process\n"
                    + "            vs raw C 64-byte ping-pong (p50_us, p99_us, calls_per_s)", run: RttBenchmark.run),
        Scenario(name: "pipeline", summary: "256 calls in flight on one connection vs raw C batched and\n"
                    + "            one-write-per-frame pipelines (calls_per_s)", run: PipelineBenchmark.run),
        Scenario(name: "bulk", summary: "1 MiB and 16 MiB Uint8List round trips vs raw C round trips\n"
                    + "            (gb_per_s_1mib, gb_per_s_16mib; 2 × size / round-trip time)", run: BulkBenchmark.run),
        Scenario(name: "codec", summary: "StandardMessageCodec encode+decode of the representative payload\n"
                    + "            vs a C codec and Foundation JSON (encdec_us)", run: CodecBenchmark.run),
        Scenario(name: "events", summary: "EventChannel events/s from another process vs a raw C one-way\n"
                    + "            stream of 64-byte frames (events_per_s)", run: EventsBenchmark.run),
        Scenario(name: "host", summary: "extension-host start to ready line, resident memory idle and\n"
                    + "            after 10k calls (ready_ms, rss_idle_mb, rss_busy_mb; no baseline)", run: HostBenchmark.run),
        Scenario(name: "prefs", summary: "an extension host's preferences at 10 to 100k keys: get and set p50,\n"
                    + "            1,000 pipelined sets/s, 50 writers' sets/s, host RSS, vs the echo call and\n"
                    + "            a C durable write (fsync, rename, fsync dir) in the same run", run: PrefsBenchmark.run),
    ]

    static let help = """
        usage: channelbridge bench [scenario ...] [--json] [--repeat N] [--scale F] [--no-pin]
                            [--pool-executor]

        Scenarios (all of them when none is named):
        \(scenarios.map { "  " + $0.name.padded(10) + $0.summary }.joined(separator: "\n"))

        Each scenario and its baseline run interleaved (A B A B …) N times (default 5). The table
        shows the median of the per-repetition ratios ours/baseline, then the median and min–max of
        each figure on this machine. Socket scenarios run the other side in a separate process:
        'channelbridge bench serve' for ours, the C program channelbridge-raw-bench for the baselines.

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
        if arguments.first == "serve" { return try await BenchServer.run(Array(arguments.dropFirst())) }
        let args = try Arguments(arguments, valued: ["repeat", "scale"], flags: ["json", "no-pin", "pool-executor"])
        if args.wantsHelp {
            Output.line(help)
            return ExitCode.success
        }
        let repetitions = try positiveInt(args.value("repeat") ?? "5", "--repeat")
        guard let scale = Double(args.value("scale") ?? "1"), scale > 0, scale.isFinite else {
            throw UsageError("--scale takes a positive number")
        }
        var chosen: [Scenario] = []
        for name in args.positionals {
            guard let scenario = scenarios.first(where: { $0.name == name }) else {
                throw UsageError("unknown scenario '\(name)'; known: \(scenarios.map(\.name).joined(separator: ", "))")
            }
            if !chosen.contains(where: { $0.name == name }) { chosen.append(scenario) }
        }
        if chosen.isEmpty { chosen = scenarios }
        let settings = BenchSettings(repetitions: repetitions, scale: scale, pinRoundTrips: !args.flag("no-pin"),
                                     readerExecutor: !args.flag("pool-executor"))
        let json = args.flag("json")
        if !json {
            Output.line(BenchReport.tableHeader)
            Output.flush()
        }
        // Generous: the longest single step (a baseline run, a bulk round) takes seconds at scale 1.
        BenchWatchdog.start(limit: .seconds(60 * max(1, scale)))
        var results: [ScenarioResult] = []
        for scenario in chosen {
            BenchWatchdog.enter(scenario.name)
            let result = try await scenario.run(settings)
            results.append(result)
            if !json {
                for line in BenchReport.tableLines(result) { Output.line(line) }
                Output.flush()
            }
        }
        if json { Output.line(BenchReport.json(results)) }
        return ExitCode.success
    }

    static func positiveInt(_ text: String, _ option: String) throws -> Int {
        guard let value = Int(text), value > 0 else { throw UsageError("\(option) takes a positive whole number") }
        return value
    }
}

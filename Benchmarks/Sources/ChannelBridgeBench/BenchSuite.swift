/// The benchmark suite behind `channelbridge-bench`: each scenario against its baseline,
/// interleaved, reported as medians and per-repetition ratios. The command parses its options and
/// calls `run`; the scenarios, their baselines and the report live here.
package enum BenchSuite {
    package struct Scenario: Sendable {
        package var name: String
        package var summary: String
        var run: @Sendable (BenchSettings) async throws -> ScenarioResult
    }

    package static let scenarios: [Scenario] = [
        Scenario(
            name: "rtt",
            summary: "invokeMethod round trips, one at a time, to another process\n"
                + "            vs raw C 64-byte ping-pong (p50_us, p99_us, calls_per_s)", run: RttBenchmark.run),
        Scenario(
            name: "pipeline",
            summary: "256 calls in flight on one connection vs raw C batched and\n"
                + "            one-write-per-frame pipelines (calls_per_s)", run: PipelineBenchmark.run),
        Scenario(
            name: "bulk",
            summary: "1 MiB and 16 MiB Uint8List round trips vs raw C round trips\n"
                + "            (gb_per_s_1mib, gb_per_s_16mib; 2 × size / round-trip time)", run: BulkBenchmark.run),
        Scenario(
            name: "codec",
            summary: "StandardMessageCodec encode+decode of the representative payload\n"
                + "            vs a C codec and Foundation JSON (encdec_us)", run: CodecBenchmark.run),
        Scenario(
            name: "events",
            summary: "EventChannel events/s from another process vs a raw C one-way\n"
                + "            stream of 64-byte frames (events_per_s)", run: EventsBenchmark.run),
        Scenario(
            name: "host",
            summary: "extension-host start to ready line, resident memory idle and\n"
                + "            after 10k calls (ready_ms, rss_idle_mb, rss_busy_mb; no baseline)",
            run: HostBenchmark.run),
        Scenario(
            name: "prefs",
            summary: "an extension host's preferences at 10 to 100k keys: get and set p50,\n"
                + "            1,000 pipelined sets/s, 50 writers' sets/s, host RSS, vs the echo call and\n"
                + "            a C durable write (fsync, rename, fsync dir) in the same run", run: PrefsBenchmark.run),
        Scenario(
            name: "record",
            summary: "the rtt calls through 'channelbridge record' writing a transcript vs the\n"
                + "            same proxy not recording (p50_us, p99_us, calls_per_s; rss_mb of each proxy)",
            run: RecordBenchmark.run),
    ]

    /// Runs `chosen` in order and prints the table (or, with `json`, one JSON object at the end).
    package static func run(_ chosen: [Scenario], settings: BenchSettings, json: Bool) async throws {
        if !json {
            BenchOutput.line(BenchReport.tableHeader)
            BenchOutput.flush()
        }
        // Generous: the longest single step (a baseline run, a bulk round) takes seconds at scale 1.
        BenchWatchdog.start(limit: .seconds(60 * max(1, settings.scale)))
        var results: [ScenarioResult] = []
        for scenario in chosen {
            BenchWatchdog.enter(scenario.name)
            let result = try await scenario.run(settings)
            results.append(result)
            if !json {
                for line in BenchReport.tableLines(result) { BenchOutput.line(line) }
                BenchOutput.flush()
            }
        }
        if json { BenchOutput.line(BenchReport.json(results)) }
        BenchOutput.flush()
    }
}

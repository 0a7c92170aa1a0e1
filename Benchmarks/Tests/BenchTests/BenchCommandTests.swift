import Foundation
import Testing

/// `channelbridge-bench` run as a real process at a tiny size, so that every scenario, its baseline (the
/// C program, `channelbridge-bench serve`, the extension host, `channelbridge record`) and the report
/// keep working. No timings are
/// asserted: only that every figure is there and is a finite positive number.
@Suite struct BenchCommandTests {
    /// The figures each scenario reports: ours, the baseline's, and the ratios.
    static let expected: [String: (ours: Set<String>, baseline: Set<String>, ratio: Set<String>)] = [
        "rtt": (
            ["p50_us", "p99_us", "calls_per_s"], ["p50_us", "p99_us", "calls_per_s"],
            ["p50_us", "p99_us", "calls_per_s"]
        ),
        "pipeline": (
            ["calls_per_s"], ["calls_per_s", "calls_per_s_one_write"],
            ["calls_per_s", "calls_per_s_one_write"]
        ),
        "bulk": (
            ["gb_per_s_1mib", "gb_per_s_16mib"], ["gb_per_s_1mib", "gb_per_s_16mib"],
            ["gb_per_s_1mib", "gb_per_s_16mib"]
        ),
        "codec": (
            ["encdec_us", "encode_us_codable"], ["encdec_us", "encdec_us_foundation_json", "encode_us_value"],
            ["encdec_us", "encdec_us_foundation_json", "encode_us_codable"]
        ),
        "events": (
            ["events_per_s"], ["events_per_s", "events_per_s_batched"], ["events_per_s", "events_per_s_batched"]
        ),
        "host": (["ready_ms", "rss_idle_mb", "rss_busy_mb"], [], []),
        "prefs": prefsFigures,
        "record": (
            ["p50_us", "p99_us", "calls_per_s", "rss_mb"], ["p50_us", "p99_us", "calls_per_s", "rss_mb"],
            ["p50_us", "p99_us", "calls_per_s", "rss_mb"]
        ),
    ]

    static let prefsFigures: (ours: Set<String>, baseline: Set<String>, ratio: Set<String>) = {
        let sizes = ["10", "1k", "10k", "100k"]
        let perSize = ["get_p50_us", "set_p50_us", "pipelined_sets_per_s", "writers50_sets_per_s"]
        let ours = Set(sizes.flatMap { size in (perSize + ["rss_mb"]).map { "\($0)_\(size)" } })
        let baseline = Set(
            ["echo_p50_us", "set_p50_us_10"]
                + sizes.flatMap { ["echo_plus_durable_us_\($0)", "sequential_sets_per_s_\($0)", "durable_us_\($0)"] })
        let ratio = Set(sizes.flatMap { size in perSize.map { "\($0)_\(size)" } } + ["set_p50_us_10k_vs_10"])
        return (ours, baseline, ratio)
    }()

    @Test(arguments: ["rtt", "pipeline", "bulk", "codec", "events", "host", "prefs", "record"])
    func everyFigureOfEveryScenario(scenario: String) async throws {
        let outcome = try await BenchProcess.run(
            "channelbridge-bench", [scenario, "--repeat", "1", "--scale", "0.001", "--json"])
        #expect(outcome.status == 0, "stderr: \(outcome.stderr)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(outcome.stdout.utf8)) as? [String: Any])
        let scenarios = try #require(object["scenarios"] as? [String: Any])
        #expect(Set(scenarios.keys) == [scenario])
        let result = try #require(scenarios[scenario] as? [String: Any])
        let expected = try #require(Self.expected[scenario])
        for (part, names) in [("ours", expected.ours), ("baseline", expected.baseline), ("ratio", expected.ratio)] {
            let figures = try #require(result[part] as? [String: Any], "\(scenario) has no \(part)")
            #expect(Set(figures.keys) == names, "\(scenario).\(part)")
            for (name, value) in figures {
                let number = (value as? NSNumber)?.doubleValue
                #expect(number.map { $0.isFinite && $0 > 0 } == true, "\(scenario).\(part).\(name) = \(value)")
            }
        }
    }

    @Test func tableHasOneRowPerFigureWithRatioFirst() async throws {
        let outcome = try await BenchProcess.run(
            "channelbridge-bench", ["codec", "--repeat", "2", "--scale", "0.001"])
        #expect(outcome.status == 0, "stderr: \(outcome.stderr)")
        let lines = outcome.stdout.split(separator: "\n").map(String.init)
        try #require(lines.count == 4)
        #expect(lines[0].hasPrefix("scenario  figure"))
        #expect(lines[0].contains("ratio"))
        #expect(lines[1].hasPrefix("codec     encdec_us "))
        #expect(lines[2].hasPrefix("codec     encdec_us_foundation_json "))
        #expect(lines[3].hasPrefix("codec     encode_us_codable "))
        // Ratio, then ours and the baseline as "median (min–max)".
        let fields = lines[1].split(separator: " ", omittingEmptySubsequences: true).map(String.init)
        #expect(fields[2].hasSuffix("×"))
        #expect(fields[4].hasPrefix("(") && fields[4].contains("–"))
    }

    @Test(
        arguments: [
            (
                ["nope"],
                "channelbridge-bench: unknown scenario 'nope'; known: rtt, pipeline, bulk, codec, events, host, prefs, record"
            ),
            (["--repeat", "0"], "channelbridge-bench: --repeat takes a positive whole number"),
            (["--scale", "-1"], "channelbridge-bench: --scale takes a positive number"),
            (
                ["--frobnicate"],
                "channelbridge-bench: unknown option --frobnicate; see --help for the options"
            ),
            (["serve"], "channelbridge-bench: serve needs --socket PATH"),
        ] as [([String], String)])
    func usageErrorsExit64(arguments: [String], firstLine: String) async throws {
        let outcome = try await BenchProcess.run("channelbridge-bench", arguments)
        #expect(outcome.status == 64)
        #expect(outcome.stdout == "")
        #expect(outcome.stderr.split(separator: "\n").first.map(String.init) == firstLine)
    }

    @Test func helpNamesEveryScenario() async throws {
        let outcome = try await BenchProcess.run("channelbridge-bench", ["--help"])
        #expect(outcome.status == 0)
        #expect(
            outcome.stdout.hasPrefix(
                "usage: channelbridge-bench [scenario ...] [--json] [--repeat N] [--scale F] [--no-pin]"))
        for scenario in Self.expected.keys { #expect(outcome.stdout.contains("\n  \(scenario) ")) }
    }

    /// The C codec checks that it re-encodes exactly the bytes it was given, so a payload that is
    /// valid but not in canonical form (a 3-byte size where 1 byte does) is refused, and a
    /// truncated one does not decode.
    @Test func cCodecRefusesPayloadsItCannotReproduce() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("bench-tests-\(getpid())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        func run(_ bytes: [UInt8]) async throws -> BenchProcess.Outcome {
            let file = directory.appendingPathComponent("payload.bin")
            try Data(bytes).write(to: file)
            return try await BenchProcess.run(
                "channelbridge-raw-bench", ["codec", "--payload", file.path, "--count", "1"])
        }
        // ["ab", 1.5]: a list with a string and a float64 after one byte of padding.
        let canonical: [UInt8] = [0x0C, 0x02, 0x07, 0x02, 0x61, 0x62, 0x06, 0x00, 0, 0, 0, 0, 0, 0, 0xF8, 0x3F]
        let good = try await run(canonical)
        #expect(good.status == 0, "stderr: \(good.stderr)")
        #expect(good.stdout.hasPrefix("{\"encdec_us\": "))
        let longSize = try await run([0x07, 0xFE, 0x03, 0x00, 0x61, 0x62, 0x63])
        #expect(longSize.status == 1)
        #expect(longSize.stderr == "channelbridge-raw-bench: re-encoding the payload changed its bytes\n")
        let truncated = try await run(Array(canonical.dropLast()))
        #expect(truncated.status == 1)
        #expect(truncated.stderr == "channelbridge-raw-bench: the payload does not decode\n")
    }
}

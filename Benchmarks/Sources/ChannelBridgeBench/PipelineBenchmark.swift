import ChannelBridge
@_spi(Benchmarks) import ChannelBridgeMessenger
import Synchronization

/// `pipeline`: one client connection with many calls in flight (256 tasks calling in a loop),
/// against the raw C pair with many frames per write, and with one write per frame.
enum PipelineBenchmark {
    static let depth = 256

    /// Shared by the calling tasks: how many calls have been started.
    private final class Counter: Sendable {
        let started = Atomic<Int>(0)
    }

    static func run(_ settings: BenchSettings) async throws -> ScenarioResult {
        let calls = settings.scaled(1_000_000, minimum: depth)
        let warmup = settings.scaled(50_000)
        // One write per frame is slow (about 200k calls/s raw); its rate needs fewer calls.
        let oneWriteCalls = settings.scaled(200_000, minimum: depth)
        var ours = BenchSeries("calls_per_s")
        var batched = BenchSeries("calls_per_s"), oneWrite = BenchSeries("calls_per_s_one_write")
        try await BenchPeer.with(readerExecutor: settings.readerExecutor) { peer in
            let channel = MethodChannel(name: BenchServer.methodChannel, messenger: peer.connection.messenger)
            for _ in 0..<settings.repetitions {
                let rate = try await peer.onReaderThread {
                    _ = try await measure(channel, on: peer.connection.messenger, calls: warmup)
                    return try await measure(channel, on: peer.connection.messenger, calls: calls)
                }
                ours.values.append(rate)
                let raw = try await RawBaseline.run(
                    "pipeline", ["count": calls, "warmup": warmup, "depth": depth],
                    flags: ["--batched"])
                batched.values.append(try RawBaseline.figure("calls_per_s", in: raw))
                let single = try await RawBaseline.run(
                    "pipeline",
                    [
                        "count": oneWriteCalls, "warmup": warmup / 10,
                        "depth": depth,
                    ], flags: ["--one-write"])
                oneWrite.values.append(try RawBaseline.figure("calls_per_s", in: single))
            }
        }
        return ScenarioResult(
            scenario: "pipeline",
            rows: [
                BenchRow(
                    figure: "calls_per_s", ours: ours, baseline: batched,
                    baselineLabel: "raw C, \(depth) in flight, batched writes"),
                BenchRow(
                    figure: "calls_per_s_one_write", ours: ours, baseline: oneWrite,
                    baselineLabel: "raw C, \(depth) in flight, one write per frame"),
            ])
    }

    /// Calls per second of `calls` echo calls made by `depth` tasks at once. Each task makes its
    /// calls in its own call scope on `messenger` (one cancellation handler for its loop, as
    /// `rtt`'s single task has; the root's `@_spi(Benchmarks)` API).
    static func measure(_ channel: MethodChannel, on messenger: MessengerConnection, calls: Int) async throws -> Double
    {
        let counter = Counter()
        let argument = RttBenchmark.argument
        let begin = BenchClock.now()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<depth {
                group.addTask {
                    try await messenger.withCallScope {
                        while true {
                            let started = counter.started.wrappingAdd(1, ordering: .relaxed).newValue
                            guard started <= calls else { break }
                            let reply = try await channel.invokeMethod("echo", arguments: argument)
                            guard reply == argument else { throw BenchError("echo answered \(reply)") }
                            // Seldom, so that the tasks do not contend for the watchdog's counter.
                            if started & 255 == 0 { BenchWatchdog.tick() }
                        }
                    }
                }
            }
            try await group.waitForAll()
        }
        return Double(calls) / (BenchClock.now() - begin)
    }
}

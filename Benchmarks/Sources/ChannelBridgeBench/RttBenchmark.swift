import ChannelBridge

/// `rtt`: `MethodChannel.invokeMethod` round trips with a small argument to `channelbridge-bench serve`
/// in another process, one at a time, against the raw C 64-byte ping-pong. Unless `--no-pin`,
/// every process of both pairs runs on CPU 0 (see `CPUAffinity`).
enum RttBenchmark {
    static let argument: StandardValue = "ping"

    static func run(_ settings: BenchSettings) async throws -> ScenarioResult {
        let calls = settings.scaled(100_000, minimum: 10)
        let warmup = settings.scaled(10_000)
        var ours = [BenchSeries("p50_us"), BenchSeries("p99_us"), BenchSeries("calls_per_s")]
        var raw = ours
        let pinned = settings.pinRoundTrips ? CPUAffinity.pinProcess(toCPU: 0) : nil
        defer { pinned?.restore() }
        try await BenchPeer.with(readerExecutor: settings.readerExecutor) { peer in
            let channel = MethodChannel(name: BenchServer.methodChannel, messenger: peer.connection.messenger)
            for _ in 0..<settings.repetitions {
                let figures = try await peer.onReaderThread { try await measure(channel, calls: calls, warmup: warmup) }
                let baseline = try await RawBaseline.run("rtt", ["count": calls, "warmup": warmup])
                for index in ours.indices {
                    ours[index].values.append(figures[index])
                    raw[index].values.append(try RawBaseline.figure(raw[index].name, in: baseline))
                }
            }
        }
        let label = "raw C 64-byte ping-pong" + (pinned == nil ? "" : ", both on CPU 0")
        return ScenarioResult(
            scenario: "rtt",
            rows: zip(ours, raw).map {
                BenchRow(figure: $0.name, ours: $0, baseline: $1, baselineLabel: label)
            })
    }

    /// p50 µs, p99 µs and calls/s of `calls` sequential calls after `warmup` more.
    static func measure(_ channel: MethodChannel, calls: Int, warmup: Int) async throws -> [Double] {
        for _ in 0..<warmup {
            _ = try await channel.invokeMethod("echo", arguments: argument)
            BenchWatchdog.tick()
        }
        var samples = [Double](repeating: 0, count: calls)
        let begin = BenchClock.now()
        for index in 0..<calls {
            let start = BenchClock.now()
            let reply = try await channel.invokeMethod("echo", arguments: argument)
            samples[index] = (BenchClock.now() - start) * 1e6
            guard reply == argument else { throw BenchError("echo answered \(reply), not \(argument)") }
            BenchWatchdog.tick()
        }
        let elapsed = BenchClock.now() - begin
        return [BenchSeries.percentile(samples, 0.50), BenchSeries.percentile(samples, 0.99), Double(calls) / elapsed]
    }
}

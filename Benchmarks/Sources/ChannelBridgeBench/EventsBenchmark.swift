import ChannelBridge

/// `events`: events per second on `channelbridge/bench/events`, from `channelbridge-bench serve` to this
/// process (each event a 64-byte `Uint8List`), against a raw C one-way stream of 64-byte frames
/// written one per `write`, and written 256 per `write`.
enum EventsBenchmark {
    static let eventSize = 64

    static func run(_ settings: BenchSettings) async throws -> ScenarioResult {
        let count = settings.scaled(500_000, minimum: 10)
        var ours = BenchSeries("events_per_s")
        var oneWrite = BenchSeries("events_per_s"), batched = BenchSeries("events_per_s_batched")
        try await BenchPeer.with { peer in
            let channel = EventChannel(name: BenchServer.eventChannel, messenger: peer.connection.messenger)
            _ = try await measure(channel, count: settings.scaled(20_000, minimum: 10))
            for _ in 0..<settings.repetitions {
                ours.values.append(try await measure(channel, count: count))
                let single = try await RawBaseline.run("stream", ["count": count], flags: ["--one-write"])
                oneWrite.values.append(try RawBaseline.figure("events_per_s", in: single))
                let many = try await RawBaseline.run("stream", ["count": count], flags: ["--batched"])
                batched.values.append(try RawBaseline.figure("events_per_s", in: many))
            }
        }
        return ScenarioResult(
            scenario: "events",
            rows: [
                BenchRow(
                    figure: "events_per_s", ours: ours, baseline: oneWrite,
                    baselineLabel: "raw C stream, one write per 64-byte frame"),
                BenchRow(
                    figure: "events_per_s_batched", ours: ours, baseline: batched,
                    baselineLabel: "raw C stream, 256 frames per write"),
            ])
    }

    /// Events per second from `listen` to the end of a stream of `count` events.
    static func measure(_ channel: EventChannel, count: Int) async throws -> Double {
        let arguments: StandardValue = ["count": .int(count), "size": .int(eventSize)]
        let begin = BenchClock.now()
        var received = 0
        for try await event in channel.receiveBroadcastStream(arguments: arguments) {
            guard case .success(.uint8List(let bytes)) = event, bytes.count == eventSize else {
                throw BenchError("unexpected event \(event)")
            }
            received += 1
            BenchWatchdog.tick()
        }
        let elapsed = BenchClock.now() - begin
        guard received == count else { throw BenchError("the stream ended after \(received) of \(count) events") }
        return Double(count) / elapsed
    }
}

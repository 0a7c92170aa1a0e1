import ChannelBridge

/// `bulk`: 1 MiB and 16 MiB `Uint8List` round trips through `echo` on `channelbridge/bench`,
/// against raw C round trips of frames of the same sizes. GB/s counts the payload both ways:
/// 2 × size / round-trip time.
enum BulkBenchmark {
    struct Size {
        var bytes: Int
        var figure: String
        var rounds: Int
        var warmup: Int
    }

    static let sizes = [
        Size(bytes: 1 << 20, figure: "gb_per_s_1mib", rounds: 100, warmup: 5),
        Size(bytes: 16 << 20, figure: "gb_per_s_16mib", rounds: 16, warmup: 2),
    ]

    static func run(_ settings: BenchSettings) async throws -> ScenarioResult {
        var ours = sizes.map { BenchSeries($0.figure) }
        var raw = ours
        try await BenchPeer.with(readerExecutor: settings.readerExecutor) { peer in
            let channel = MethodChannel(name: BenchServer.methodChannel, messenger: peer.connection.messenger)
            let payloads = sizes.map { payload(count: $0.bytes) }
            BenchWatchdog.tick()
            for _ in 0..<settings.repetitions {
                for (index, size) in sizes.enumerated() {
                    let rounds = settings.scaled(size.rounds)
                    let warmup = settings.scaled(size.warmup, minimum: 0)
                    ours[index].values.append(
                        try await peer.onReaderThread {
                            try await measure(channel, payloads[index], rounds: rounds, warmup: warmup)
                        })
                    let baseline = try await RawBaseline.run(
                        "bulk", ["size": size.bytes, "count": rounds, "warmup": warmup])
                    raw[index].values.append(try RawBaseline.figure("gb_per_s", in: baseline))
                }
            }
        }
        return ScenarioResult(
            scenario: "bulk",
            rows: zip(ours, raw).map {
                BenchRow(figure: $0.name, ours: $0, baseline: $1, baselineLabel: "raw C round trip of one frame")
            })
    }

    /// `count` varied bytes, written eight at a time: a closure per byte costs seconds for the 17 MiB
    /// of both sizes in an unoptimised build, and `BenchCommandTests` runs every scenario in one.
    static func payload(count: Int) -> [UInt8] {
        [UInt8](unsafeUninitializedCapacity: count) { bytes, initialized in
            let raw = UnsafeMutableRawBufferPointer(bytes)
            var word: UInt64 = 0x0706_0504_0302_0100
            var offset = 0
            while offset + 8 <= count {
                raw.storeBytes(of: word, toByteOffset: offset, as: UInt64.self)
                word = word &* 0x5851_F42D_4C95_7F2D &+ 0x1405_7B7E_F767_814F
                offset += 8
            }
            while offset < count {
                raw[offset] = UInt8(truncatingIfNeeded: word >> (8 * (offset % 8)))
                offset += 1
            }
            initialized = count
        }
    }

    static func measure(_ channel: MethodChannel, _ payload: [UInt8], rounds: Int, warmup: Int) async throws -> Double {
        let argument = StandardValue.uint8List(payload)
        var begin = BenchClock.now()
        for round in -warmup..<rounds {
            if round == 0 { begin = BenchClock.now() }
            let reply = try await channel.invokeMethod("echo", arguments: argument)
            // The ends and the length: comparing every byte would cost as much as the transfer.
            guard case .uint8List(let bytes) = reply, bytes.count == payload.count,
                bytes.first == payload.first, bytes.last == payload.last
            else {
                throw BenchError("the bulk echo did not return the \(payload.count) bytes sent")
            }
            BenchWatchdog.tick()
        }
        return 2 * Double(payload.count) * Double(rounds) / (BenchClock.now() - begin) / 1e9
    }
}

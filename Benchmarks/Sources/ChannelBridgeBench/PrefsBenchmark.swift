import ChannelBridge
@_spi(Benchmarks) import ChannelBridgeMessenger
@_spi(Benchmarks) import ChannelBridgeSocket
import Foundation
import Synchronization

/// `prefs`: the `shared_preference_app_group` plugin of a real `extension-host` process, with an
/// app group of 10, 1,000, 10,000 and 100,000 keys (a 40-byte string each), against baselines
/// measured in the same repetition: the `rtt` echo call (what a call costs with no store) and the
/// C durable-write floor (`channelbridge-raw-bench durable`: write a temporary file of the group
/// file's size, fsync, rename, fsync the directory). Each set one at a time is paired with one
/// write of the floor right after it (`durable --stepped`), under the same CPU pinning: a disk
/// shared with other work changes its `fsync` latency several-fold from one second to the next,
/// and a process pinned to a busy CPU waits longer for each wake-up, so a floor measured seconds
/// apart, or unpinned, measures another machine.
///
/// Figures per size N: `get_p50_us_N` (getString, one at a time) against the echo call's p50;
/// `set_p50_us_N` (setString, one at a time, each durable) against echo + the C floor at the
/// file's size; `pipelined_sets_per_s_N` (1,000 setString in flight on one connection) and
/// `writers50_sets_per_s_N` (50 connections each setting one at a time) against the sequential
/// set rate; `set_p50_us_10k_vs_10` (set p50 at 10,000 keys against set p50 at 10 keys); and the
/// host's resident memory after serving the group, `rss_mb_N` (no baseline).
package enum PrefsBenchmark {
    static let sizes = [10, 1_000, 10_000, 100_000]
    static let group = "group.bench"
    static let channelName = "shared_preference_app_group"
    static let valueLength = 40
    static let writers = 50

    struct SizeFigures {
        var getP50 = 0.0, setP50 = 0.0, sequentialRate = 0.0, pipelinedRate = 0.0, writersRate = 0.0
        var rss = 0.0, fileBytes = 0
        /// The C floor's p50 at the file's size, over the writes paired with the sets.
        var floorP50 = 0.0
    }

    static func run(_ settings: BenchSettings) async throws -> ScenarioResult {
        let gets = settings.scaled(5_000, minimum: 20)
        let sets = settings.scaled(300, minimum: 5)
        let pipelined = settings.scaled(1_000, minimum: 10)
        let writerSets = settings.scaled(20, minimum: 2)
        var echo = BenchSeries("echo_p50_us")
        var perSize: [Int: [SizeFigures]] = [:]
        for _ in 0..<settings.repetitions {
            // The echo call, exactly as `rtt` makes it (pinned like rtt unless --no-pin).
            let pinned = settings.pinRoundTrips ? CPUAffinity.pinProcess(toCPU: 0) : nil
            let echoP50 = try await BenchPeer.with(readerExecutor: settings.readerExecutor) { peer in
                let channel = MethodChannel(name: BenchServer.methodChannel, messenger: peer.connection.messenger)
                return try await peer.onReaderThread {
                    try await RttBenchmark.measure(channel, calls: gets, warmup: gets / 10)[0]
                }
            }
            pinned?.restore()
            echo.values.append(echoP50)
            for size in sizes {
                let figures = try await measure(
                    size: size, settings: settings, gets: gets, sets: sets,
                    pipelined: pipelined, writerSets: writerSets)
                perSize[size, default: []].append(figures)
            }
        }
        var rows: [BenchRow] = []
        for size in sizes {
            let figures = perSize[size] ?? []
            let name = label(size)
            func series(_ prefix: String, _ value: (SizeFigures) -> Double) -> BenchSeries {
                BenchSeries("\(prefix)_\(name)", figures.map(value))
            }
            let sequential = series("sequential_sets_per_s", \.sequentialRate)
            let floorPlusEcho = BenchSeries(
                "echo_plus_durable_us_\(name)",
                zip(echo.values, figures.map(\.floorP50)).map { $0 + $1 })
            rows += [
                BenchRow(
                    figure: "get_p50_us_\(name)", ours: series("get_p50_us", \.getP50), baseline: echo,
                    baselineLabel: "echo call p50 (rtt), same run"),
                BenchRow(
                    figure: "set_p50_us_\(name)", ours: series("set_p50_us", \.setP50), baseline: floorPlusEcho,
                    baselineLabel: "echo p50 + C durable write of the \(figures.last?.fileBytes ?? 0)-byte file"),
                BenchRow(
                    figure: "pipelined_sets_per_s_\(name)", ours: series("pipelined_sets_per_s", \.pipelinedRate),
                    baseline: sequential, baselineLabel: "sets one at a time, same group"),
                BenchRow(
                    figure: "writers50_sets_per_s_\(name)", ours: series("writers50_sets_per_s", \.writersRate),
                    baseline: sequential, baselineLabel: "sets one at a time, same group"),
                BenchRow(figure: "rss_mb_\(name)", ours: series("rss_mb", \.rss), baseline: nil, baselineLabel: ""),
                BenchRow(
                    figure: "durable_us_\(name)", ours: nil,
                    baseline: BenchSeries("durable_us_\(name)", figures.map(\.floorP50)),
                    baselineLabel: "C floor alone: write, fsync, rename, fsync dir"),
            ]
        }
        if let small = perSize[10], let large = perSize[10_000] {
            rows.append(
                BenchRow(
                    figure: "set_p50_us_10k_vs_10",
                    ours: BenchSeries("set_p50_us_10k", large.map(\.setP50)),
                    baseline: BenchSeries("set_p50_us_10", small.map(\.setP50)),
                    baselineLabel: "set p50 at 10 keys"))
        }
        return ScenarioResult(scenario: "prefs", rows: rows)
    }

    static func label(_ size: Int) -> String {
        size >= 1_000 ? "\(size / 1_000)k" : "\(size)"
    }

    /// One host on a group of `size` keys: every figure of that size.
    static func measure(
        size: Int, settings: BenchSettings, gets: Int, sets: Int, pipelined: Int,
        writerSets: Int
    ) async throws -> SizeFigures {
        let directory = BenchPeer.socketDirectory("prefs")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let socket = directory + "/host.sock"
        let data = directory + "/data"
        var figures = SizeFigures()
        figures.fileBytes = try populate(dataDirectory: data, keys: size)
        let host = try ChildProcess(
            product: HostBenchmark.product,
            arguments: [
                "--socket", socket, "--data-dir", data, "--app-group", group,
            ])
        do {
            let line = try await host.readLine()
            guard line == "ready \(socket)" else {
                throw BenchError("\(HostBenchmark.product) said '\(line)', not its ready line")
            }
            var options = SocketConnection.Options()
            options.runsTasksOnReaderThread = settings.readerExecutor
            let connection = try await SocketConnection.connect(to: socket, options: options)
            _ = try await connection.messenger.waitForPeerHello()
            let channel = MethodChannel(name: channelName, messenger: connection.messenger)
            let counter = Counter()

            // Latencies one call at a time, pinned like the echo call they are compared with: this
            // process and the host on CPU 0 (the host only for this part; it writes on both CPUs).
            // The C floor, started from here, inherits the pinning.
            let pinned = settings.pinRoundTrips ? CPUAffinity.pinProcess(toCPU: 0) : nil
            let pinnedHost = settings.pinRoundTrips ? CPUAffinity.pin(process: host.pid, toCPU: 0) : nil
            let fileBytes = figures.fileBytes
            // Made as the echo call they are compared with is made (`BenchPeer.onReaderThread`): on
            // the reader thread, in one call scope. Without the scope each call installed its own
            // cancellation handler, which the echo call does not pay.
            let messenger = connection.messenger
            let (getP50, setFigures, floorP50) = try await withTaskExecutorPreference(connection.executor) {
                try await messenger.withCallScope {
                    let getP50 = try await measureGets(channel, size: size, count: gets)
                    let measured = try await measureSets(
                        channel, size: size, count: sets, fileBytes: fileBytes,
                        counter: counter)
                    return (getP50, measured.sets, measured.floorP50)
                }
            }
            pinnedHost?.restore()
            pinned?.restore()
            figures.getP50 = getP50
            figures.setP50 = setFigures.p50
            figures.sequentialRate = setFigures.rate
            figures.floorP50 = floorP50
            figures.pipelinedRate = try await measurePipelined(channel, size: size, count: pipelined, counter: counter)
            figures.writersRate = try await measureWriters(
                socket: socket, size: size, setsEach: writerSets, counter: counter)
            figures.rss = try host.residentMegabytes()
            connection.close()
            await connection.waitUntilClosed()
            host.terminate()
            await host.waitForExit()
            return figures
        } catch {
            host.terminate()
            await host.waitForExit()
            throw error
        }
    }

    /// Hands out distinct values (and keys round-robin), shared by concurrent setters.
    final class Counter: Sendable {
        private let next = Atomic<Int>(0)
        func take() -> Int { next.wrappingAdd(1, ordering: .relaxed).oldValue }
    }

    package static func value(_ index: Int) -> String {
        let text = "v\(index)-"
        return text + String(repeating: "x", count: max(0, valueLength - text.utf8.count))
    }

    static func setArguments(_ counter: Counter, size: Int) -> StandardValue {
        let index = counter.take()
        return ["key": .string("k\(index % size)"), "value": .string(value(index))]
    }

    /// The key the get numbered `index` reads in a group of `size` keys: consecutive gets stride
    /// through the group by a prime, so a group larger than the gets made sees each key once.
    package static func getKey(_ index: Int, size: Int) -> String {
        "k\(((index &* 7919) % size + size) % size)"
    }

    static func measureGets(_ channel: MethodChannel, size: Int, count: Int) async throws -> Double {
        var samples = [Double](repeating: 0, count: count)
        for index in -(count / 10)..<count {
            let key = getKey(index, size: size)
            let start = BenchClock.now()
            let reply = try await channel.invokeMethod("getString", arguments: ["key": .string(key)])
            if index >= 0 { samples[index] = (BenchClock.now() - start) * 1e6 }
            guard case .string(let text) = reply, text.utf8.count == valueLength else {
                throw BenchError("getString \(key) answered \(reply)")
            }
            BenchWatchdog.tick()
        }
        return BenchSeries.percentile(samples, 0.50)
    }

    /// Sets one at a time, each followed by one write of the C floor (a file of `fileBytes`); the
    /// sets' p50 and rate (the floor's writes not counted), and the floor's p50.
    static func measureSets(
        _ channel: MethodChannel, size: Int, count: Int, fileBytes: Int,
        counter: Counter
    ) async throws -> (sets: (p50: Double, rate: Double), floorP50: Double) {
        var samples = [Double](repeating: 0, count: count)
        var floors = [Double](repeating: 0, count: count)
        let floor = try ChildProcess(
            product: RawBaseline.product, arguments: ["durable", "--size", String(fileBytes), "--stepped"])
        defer { floor.closeInput() }
        func floorWrite() async throws -> Double {
            try floor.writeLine("")
            let line = try await floor.readLine()
            guard let micros = Double(line) else {
                throw BenchError("\(RawBaseline.product) durable --stepped said '\(line)'")
            }
            return micros
        }
        guard try await floor.readLine() == "ready" else {
            throw BenchError("\(RawBaseline.product) durable --stepped did not start")
        }
        _ = try await channel.invokeMethod("setString", arguments: setArguments(counter, size: size))
        for _ in 0..<2 { _ = try await floorWrite() }
        var last: StandardValue = .null
        var elapsed = 0.0
        for index in 0..<count {
            last = setArguments(counter, size: size)
            let start = BenchClock.now()
            _ = try await channel.invokeMethod("setString", arguments: last)
            let end = BenchClock.now()
            samples[index] = (end - start) * 1e6
            elapsed += end - start
            floors[index] = try await floorWrite()
            BenchWatchdog.tick()
        }
        floor.closeInput()
        _ = try await floor.finish()
        let rate = Double(count) / elapsed
        // The session reads its own last write.
        let stored = try await channel.invokeMethod("getString", arguments: ["key": last["key"] ?? .null])
        guard stored == last["value"] else { throw BenchError("getString after setString \(last) answered \(stored)") }
        return ((BenchSeries.percentile(samples, 0.50), rate), BenchSeries.percentile(floors, 0.50))
    }

    /// `count` sets sent at once on one connection; sets/s until the last reply.
    static func measurePipelined(
        _ channel: MethodChannel, size: Int, count: Int, counter: Counter
    ) async throws -> Double {
        let begin = BenchClock.now()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<count {
                let arguments = setArguments(counter, size: size)
                group.addTask { _ = try await channel.invokeMethod("setString", arguments: arguments) }
            }
            for try await _ in group { BenchWatchdog.tick() }
        }
        return Double(count) / (BenchClock.now() - begin)
    }

    /// `writers` connections, each setting `setsEach` keys one at a time; total sets/s.
    static func measureWriters(socket: String, size: Int, setsEach: Int, counter: Counter) async throws -> Double {
        var connections: [SocketConnection] = []
        for _ in 0..<writers {
            let connection = try await SocketConnection.connect(to: socket)
            _ = try await connection.messenger.waitForPeerHello()
            connections.append(connection)
        }
        defer { for connection in connections { connection.close() } }
        let begin = BenchClock.now()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for connection in connections {
                let channel = MethodChannel(name: channelName, messenger: connection.messenger)
                group.addTask {
                    for _ in 0..<setsEach {
                        _ = try await channel.invokeMethod("setString", arguments: setArguments(counter, size: size))
                        BenchWatchdog.tick()
                    }
                }
            }
            try await group.waitForAll()
        }
        let rate = Double(writers * setsEach) / (BenchClock.now() - begin)
        for connection in connections {
            connection.close()
            await connection.waitUntilClosed()
        }
        return rate
    }

    /// Writes the group's `preferences.json` (format version 1, Protocol/store.md) with `keys`
    /// string values, as any writer may; returns its size in bytes.
    package static func populate(dataDirectory: String, group: String = group, keys: Int) throws -> Int {
        let groupDirectory = dataDirectory + "/app-groups/" + group
        try FileManager.default.createDirectory(atPath: groupDirectory, withIntermediateDirectories: true)
        var text = "{\n  \"version\": 1,\n  \"values\": {"
        text.reserveCapacity(keys * (valueLength + 20) + 64)
        for index in 0..<keys {
            text += index == 0 ? "\n    " : ",\n    "
            text += "\"k\(index)\": \"\(value(-index - 1))\""
        }
        text += "\n  }\n}\n"
        let bytes = Data(text.utf8)
        try bytes.write(to: URL(fileURLWithPath: groupDirectory + "/preferences.json"))
        return bytes.count
    }
}

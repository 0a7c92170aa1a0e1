import ChannelBridge
import Foundation

/// `host`: the extension host from start to its ready line, and its resident memory when idle and
/// after 10k calls on its `channelbridge/echo` channel (`--echo`). No baseline: the targets are
/// absolute (ready < 50 ms, idle < 20 MB).
enum HostBenchmark {
    static let product = "extension-host"
    static let echoChannel = "channelbridge/echo"

    static func run(_ settings: BenchSettings) async throws -> ScenarioResult {
        let calls = settings.scaled(10_000)
        var ready = BenchSeries("ready_ms"), idle = BenchSeries("rss_idle_mb"), busy = BenchSeries("rss_busy_mb")
        for _ in 0..<settings.repetitions {
            let figures = try await measure(calls: calls)
            ready.values.append(figures.readyMilliseconds)
            idle.values.append(figures.idle)
            busy.values.append(figures.busy)
        }
        return ScenarioResult(
            scenario: "host",
            rows: [ready, idle, busy].map {
                BenchRow(figure: $0.name, ours: $0, baseline: nil, baselineLabel: "")
            })
    }

    static func measure(calls: Int) async throws -> (readyMilliseconds: Double, idle: Double, busy: Double) {
        let directory = BenchPeer.socketDirectory("host")
        let path = directory + "/host.sock"
        defer { try? FileManager.default.removeItem(atPath: directory) }
        // The host creates no directory for a socket it is given.
        try FileManager.default.createDirectory(
            atPath: directory, withIntermediateDirectories: false,
            attributes: [.posixPermissions: 0o700])
        let start = BenchClock.now()
        let host = try ChildProcess(
            product: product,
            arguments: [
                "--socket", path, "--echo", "--data-dir", directory + "/data",
            ])
        do {
            let line = try await host.readLine()
            let readyMilliseconds = (BenchClock.now() - start) * 1000
            guard line == "ready \(path)" else { throw BenchError("\(product) said '\(line)', not its ready line") }
            // Let start-up work that follows the ready line settle before calling it idle.
            try await Task.sleep(for: .milliseconds(200))
            let idle = try host.residentMegabytes()
            let connection = try await SocketConnection.connect(to: path)
            let channel = BasicMessageChannel(name: echoChannel, messenger: connection.messenger, codec: BinaryCodec())
            let message = Array("ping from channelbridge-bench".utf8)
            for _ in 0..<calls {
                guard try await channel.send(message) == message else {
                    throw BenchError("\(echoChannel) did not echo the bytes it got")
                }
                BenchWatchdog.tick()
            }
            let busy = try host.residentMegabytes()
            connection.close()
            await connection.waitUntilClosed()
            host.terminate()
            await host.waitForExit()
            return (readyMilliseconds, idle, busy)
        } catch {
            host.terminate()
            await host.waitForExit()
            throw error
        }
    }
}

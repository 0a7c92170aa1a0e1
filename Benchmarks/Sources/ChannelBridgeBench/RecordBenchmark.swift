import ChannelBridge
import Foundation

/// `record`: the `rtt` calls made through `channelbridge record` writing a transcript, against the
/// same calls through the same proxy with recording off (no `--transcript`: bytes passed on, nothing
/// decoded), both in front of one `channelbridge-bench serve`, interleaved. Also the resident
/// memory of each proxy once every repetition's calls have gone through it: recording streams the
/// transcript to disk, so its memory stays flat in the number of calls.
enum RecordBenchmark {
    static func run(_ settings: BenchSettings) async throws -> ScenarioResult {
        let calls = settings.scaled(100_000, minimum: 10)
        let warmup = settings.scaled(10_000)
        var ours = [BenchSeries("p50_us"), BenchSeries("p99_us"), BenchSeries("calls_per_s")]
        var off = ours
        var rssRecording = BenchSeries("rss_mb"), rssOff = BenchSeries("rss_mb")
        let directory = BenchPeer.socketDirectory("record")
        let server = directory + "/serve.sock"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let host = try await started(product: "channelbridge-bench", ["serve", "--socket", server], ready: server)
        let recording = try await started(
            ["record", "--listen", directory + "/on.sock", "--socket", server, "--transcript", directory + "/t.json"],
            ready: directory + "/on.sock")
        let passing = try await started(
            ["record", "--listen", directory + "/off.sock", "--socket", server], ready: directory + "/off.sock")
        do {
            let through = try await SocketConnection.connect(to: directory + "/on.sock")
            let plain = try await SocketConnection.connect(to: directory + "/off.sock")
            let onChannel = MethodChannel(name: BenchServer.methodChannel, messenger: through.messenger)
            let offChannel = MethodChannel(name: BenchServer.methodChannel, messenger: plain.messenger)
            for _ in 0..<settings.repetitions {
                let withRecording = try await RttBenchmark.measure(onChannel, calls: calls, warmup: warmup)
                let without = try await RttBenchmark.measure(offChannel, calls: calls, warmup: warmup)
                for index in ours.indices {
                    ours[index].values.append(withRecording[index])
                    off[index].values.append(without[index])
                }
                rssRecording.values.append(try recording.residentMegabytes())
                rssOff.values.append(try passing.residentMegabytes())
            }
            through.close()
            plain.close()
            await through.waitUntilClosed()
            await plain.waitUntilClosed()
        } catch {
            for child in [recording, passing, host] { await stop(child) }
            throw error
        }
        for child in [recording, passing, host] { await stop(child) }
        let label = "the same proxy without --transcript"
        return ScenarioResult(
            scenario: "record",
            rows: zip(ours, off).map { BenchRow(figure: $0.name, ours: $0, baseline: $1, baselineLabel: label) }
                + [BenchRow(figure: "rss_mb", ours: rssRecording, baseline: rssOff, baselineLabel: label)])
    }

    /// `PRODUCT ARGUMENTS` once it has printed `ready PATH`.
    private static func started(
        product: String = "channelbridge", _ arguments: [String], ready path: String
    ) async throws -> ChildProcess {
        let child = try ChildProcess(product: product, arguments: arguments)
        let line = try await child.readLine()
        guard line == "ready \(path)" else {
            await stop(child)
            throw BenchError("\(product) \(arguments[0]) said '\(line)', not its ready line")
        }
        return child
    }

    /// Ends `child`: its stdin closes (`channelbridge-bench serve`) and it gets SIGTERM (`record`).
    private static func stop(_ child: ChildProcess) async {
        child.closeInput()
        child.terminate()
        await child.waitForExit()
    }
}

import ChannelBridgeChannels
import ChannelBridgeCodec
import Foundation
import Synchronization
import ChannelBridgeSocket

/// `unread-replies`: a client pipelines `getString` of a 32 KiB value for 20 s and never reads a
/// reply. The host must stop reading from it (its own kernel buffer slows it), so its memory grows
/// by a bounded amount, while a second client's calls are answered throughout.
enum UnreadRepliesScenario {
    static let channel = "shared_preference_app_group"

    static func run(_ settings: StressSettings, _ report: StressReport) async throws {
        try await StressHost.with("replies", settings: settings) { host in
            let prober = try await host.connect()
            let prefs = MethodChannel(name: channel, messenger: prober.messenger)
            let value = String(repeating: "x", count: 32 << 10)
            _ = try await prefs.invokeMethod("setString", arguments: ["key": "big", "value": .string(value)])
            let before = host.residentMegabytes()
            report.figure("host_rss_before_mb", before)
            let sampler = MemorySampler(host)

            let duration = settings.seconds(20)
            let deadline = ContinuousClock.now + .milliseconds(Int64(duration * 1000))
            let flooder = try RawPeer(path: host.socket)
            let sent = Atomic<Int>(0)
            let flooding = Task {
                try await ChildProcess.onThread("stress flooder") {
                    flooder.write(RawPeer.hello())
                    // 64 requests per write; ids wrap long before they could repeat in flight.
                    var batch: [UInt8] = []
                    for id in 1...64 {
                        batch += try RawPeer.call(
                            id: UInt32(id), channel: channel, method: "getString",
                            arguments: ["key": "big"])
                    }
                    var round: UInt32 = 0
                    while ContinuousClock.now < deadline {
                        var offset = 0
                        // Fresh ids per round: rewrite each request's id (bytes 5...8 of each frame).
                        round &+= 1
                        var frames = batch
                        var at = 0
                        var index: UInt32 = 0
                        while at < frames.count {
                            let length = Int(
                                UInt32(frames[at]) | UInt32(frames[at + 1]) << 8
                                    | UInt32(frames[at + 2]) << 16 | UInt32(frames[at + 3]) << 24)
                            let id = max(1, round &* 64 &+ index &+ 1)
                            withUnsafeBytes(of: id.littleEndian) {
                                for byte in 0..<4 { frames[at + 5 + byte] = $0[byte] }
                            }
                            at += 4 + length
                            index += 1
                        }
                        while offset < frames.count, ContinuousClock.now < deadline {
                            guard let next = flooder.writeNow(frames, from: offset) else { return }
                            if next == offset { flooder.waitWritable(milliseconds: 10) }
                            offset = next
                        }
                        if offset == frames.count { sent.add(64, ordering: .relaxed) }
                    }
                }
            }

            var latencies: [Double] = []
            var wrong = 0, failed = 0
            while ContinuousClock.now < deadline {
                let start = ContinuousClock.now
                do {
                    let reply = try await prefs.invokeMethod("getString", arguments: ["key": "big"])
                    if reply != .string(value) { wrong += 1 }
                } catch {
                    failed += 1
                }
                latencies.append((ContinuousClock.now - start).milliseconds)
                try await Task.sleep(for: .milliseconds(10))
            }
            try await flooding.value
            let peak = sampler.stop()
            report.figure("flooder_requests_written", sent.load(ordering: .relaxed))
            report.figure("host_rss_peak_growth_mb", peak - before, "(target ≤ 32)")
            report.figure("second_client_calls", latencies.count)
            report.figure("second_client_wrong_or_failed", wrong + failed, "(target 0)")
            latencies.sort()
            report.figure("second_client_p50_ms", latencies.isEmpty ? .nan : latencies[latencies.count / 2])
            report.figure("second_client_max_ms", latencies.last ?? .nan, "(target ≤ 50)")
            flooder.close()
            try await Task.sleep(for: .seconds(settings.seconds(1)))
            report.figure("host_rss_after_close_mb", host.residentMegabytes())
            prober.close()
            await prober.waitUntilClosed()
        }
    }
}

extension Duration {
    var milliseconds: Double {
        Double(components.seconds) * 1000 + Double(components.attoseconds) / 1e15
    }
}

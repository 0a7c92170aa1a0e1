import ChannelBridgeChannels
import ChannelBridgeCodec
import ChannelBridgePlatform
import Foundation
import Synchronization
import ChannelBridgeSocket

/// `unread-events`: one listener on the preference change stream never reads while another
/// client writes 256 KiB values to a few keys for 20 s. The host's memory must stay bounded (the
/// stream coalesces per key while its listener is behind), and a second listener that reads still
/// gets the latest value of every key.
///
/// The same run without the listener that never reads comes first, on a host of its own: what the
/// store itself costs to write 256 KiB values (it rewrites and re-reads the whole file per write)
/// is then told apart from what the stuck listener adds.
enum UnreadEventsScenario {
    static let channel = "shared_preference_app_group"
    static let changes = "shared_preference_app_group/changes"
    static let keyCount = 8

    static func run(_ settings: StressSettings, _ report: StressReport) async throws {
        report.figure("value_kib", settings.count(256, minimum: 4), "(256 at --scale 1)")
        let control = try await measure(settings, report, stuckListener: false)
        let growth = try await measure(settings, report, stuckListener: true)
        report.figure("growth_added_by_the_stuck_listener_mb", growth - control, "(what flow control bounds)")
    }

    /// Returns the host's peak memory growth while writing.
    static func measure(_ settings: StressSettings, _ report: StressReport, stuckListener: Bool) async throws -> Double
    {
        let prefix = stuckListener ? "" : "control_"
        return try await StressHost.with("events", settings: settings) { host in
            let writer = try await host.connect()
            let prefs = MethodChannel(name: channel, messenger: writer.messenger)

            // The listener that never reads: HELLO and listen, then nothing.
            var stuck: RawPeer?
            if stuckListener {
                let peer = try RawPeer(path: host.socket)
                let listen = try RawPeer.call(
                    id: 1, channel: changes, method: "listen",
                    arguments: ["appGroup": .string(StressHost.appGroup)])
                _ = try await ChildProcess.onThread("stress listen") { peer.write(RawPeer.hello() + listen) }
                stuck = peer
            }

            // The listener that reads, keeping the latest write number seen per key.
            let reader = try await host.connect()
            let latest = LockedValue<[String: UInt64]>([:])
            let events = Atomic<Int>(0)
            let stream = EventChannel(name: changes, messenger: reader.messenger)
                .receiveBroadcastStream(arguments: ["appGroup": .string(StressHost.appGroup)])
            let reading = Task {
                for try await event in stream {
                    guard case .success(let change) = event, let key = change["key"]?.stringValue,
                        case .uint8List(let bytes)? = change["value"], bytes.count >= 8
                    else { continue }
                    let number = bytes.prefix(8).enumerated().reduce(UInt64(0)) {
                        $0 | UInt64($1.element) << (8 * $1.offset)
                    }
                    latest.withLock { $0[key] = number }
                    events.add(1, ordering: .relaxed)
                }
            }
            // The reader's listen goes out when its task starts iterating, and nothing says when the
            // host has subscribed it: a marker is written until the reader sees one.
            let size = settings.count(256, minimum: 4) << 10
            try await waitUntil(seconds: 10) {
                latest.withLock { $0["marker"] != nil }
            } between: {
                _ = try await prefs.invokeMethod(
                    "setBytes", arguments: ["key": "marker", "value": .uint8List(Self.value(0, size: size))])
            }

            let before = host.residentMegabytes()
            report.figure(prefix + "host_rss_before_mb", before)
            let sampler = MemorySampler(host)
            let deadline = ContinuousClock.now + .milliseconds(Int64(settings.seconds(20) * 1000))
            var written: [String: UInt64] = [:]
            var number: UInt64 = 0
            while ContinuousClock.now < deadline {
                number += 1
                let key = "k\(number % UInt64(keyCount))"
                _ = try await prefs.invokeMethod(
                    "setBytes", arguments: ["key": .string(key), "value": .uint8List(Self.value(number, size: size))])
                written[key] = number
            }
            let peak = sampler.stop()
            report.figure(prefix + "writes", Int(number))
            report.figure(
                prefix + "host_rss_peak_growth_mb", peak - before,
                stuckListener ? "(target ≤ 32)" : "(no stuck listener)")
            let caughtUp =
                (try? await waitUntil(seconds: 30) {
                    latest.withLock { seen in written.allSatisfy { seen[$0.key] == $0.value } }
                }) != nil
            report.figure(prefix + "reading_listener_events", events.load(ordering: .relaxed))
            report.figure(prefix + "reading_listener_has_latest_of_every_key", caughtUp ? 1 : 0, "(target 1)")
            reading.cancel()
            stuck?.close()
            reader.close()
            writer.close()
            await reader.waitUntilClosed()
            await writer.waitUntilClosed()
            return peak - before
        }
    }

    /// `size` bytes whose first 8 are `number` (little-endian).
    static func value(_ number: UInt64, size: Int) -> [UInt8] {
        var bytes = [UInt8](repeating: 0x5A, count: size)
        for index in 0..<8 { bytes[index] = UInt8(truncatingIfNeeded: number >> (8 * index)) }
        return bytes
    }
}

/// Polls `condition` every 5 ms (a benchmark may poll; tests may not) until it holds, or throws
/// after `seconds`; `between` runs before each check (e.g. a write that may need repeating).
func waitUntil(
    seconds: Double, _ condition: () -> Bool,
    between: () async throws -> Void = {}
) async throws {
    let deadline = ContinuousClock.now + .milliseconds(Int64(seconds * 1000))
    try await between()
    while !condition() {
        guard ContinuousClock.now < deadline else { throw StressError("a condition did not hold within \(seconds) s") }
        try await Task.sleep(for: .milliseconds(5))
        try await between()
    }
}

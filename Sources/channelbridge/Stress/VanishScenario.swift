import ChannelBridgeCodec
import ChannelBridgePlatform
import ChannelBridgeStore
import Foundation

/// `vanish`: a client pipelines 3,000 `setString` and closes its socket without reading a reply
/// (the host then sees a reset). Once the host sees the end, no request still queued starts and
/// the running ones are cancelled, so the store stops changing soon after. The store file is
/// polled every millisecond from here: a benchmark, not a test.
enum VanishScenario {
    static func run(_ settings: StressSettings, _ report: StressReport) async throws {
        try await StressHost.with("vanish", settings: settings) { host in
            let count = settings.count(3000, minimum: 10)
            let store = AppGroupStore(dataDirectory: host.dataDirectory)
            let file = store.directory(forGroup: StressHost.appGroup) + "/preferences.json"
            var requests: [UInt8] = RawPeer.hello()
            for index in 0..<count {
                requests += try RawPeer.call(
                    id: UInt32(index + 1), channel: "shared_preference_app_group",
                    method: "setString",
                    arguments: ["key": .string("k\(index)"), "value": .string("value \(index)")])
            }
            let peer = try RawPeer(path: host.socket)
            let requestBytes = requests
            // Writes everything (the host takes it at its pace), then vanishes.
            let closedAt = try await ChildProcess.onThread("stress vanish") { () -> ContinuousClock.Instant in
                peer.write(requestBytes)
                peer.close()
                return ContinuousClock.now
            }
            // Watch the file until it has not changed for a while.
            let quiet = Duration.milliseconds(Int64(max(300, settings.seconds(2) * 1000)))
            let (changes, lastChange) = try await ChildProcess.onThread("stress watch") {
                () -> (Int, ContinuousClock.Instant?) in
                var last = Self.signature(file)
                var lastChange: ContinuousClock.Instant?
                var changes = 0
                var quietSince = ContinuousClock.now
                while ContinuousClock.now - quietSince < quiet {
                    Syscalls.sleep(microseconds: 1000)
                    let now = Self.signature(file)
                    if now != last {
                        last = now
                        changes += 1
                        lastChange = .now
                        quietSince = .now
                    }
                }
                return (changes, lastChange)
            }
            let landed = (try? await store.group(StressHost.appGroup).allValues().count) ?? 0
            report.figure("requests_pipelined", count)
            report.figure("writes_landed", landed)
            report.figure("store_changes_after_close", changes)
            let after = lastChange.map { ($0 - closedAt).milliseconds } ?? 0
            report.figure("store_changing_ms_after_close", max(0, after), "(target ≤ 100)")
        }
    }

    /// What changes when the file is replaced: inode, size and modification time.
    static func signature(_ path: String) -> [Int] {
        guard let info = FileCalls.status(path) else { return [] }
        return [Int(info.inode), info.size, info.modified.seconds, info.modified.nanoseconds]
    }
}

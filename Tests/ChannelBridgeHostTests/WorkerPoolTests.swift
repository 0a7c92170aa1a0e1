import ChannelBridgeChannels
import ChannelBridgeMessenger
import ChannelBridgePlatform
import ChannelBridgeSocket
import ChannelBridgeTestSupport
import Testing

/// The idle workers of an isolated host (Protocol/extension-host.md §1.8), counted as the kernel
/// sees the host's children: 2 at rest; more, within the bound, after a burst of connections
/// found none started; back to 2 once the burst is over.
@Suite struct WorkerPoolTests {
    @Test func aBurstGrowsTheIdlePoolWithinItsBoundAndItShrinksBack() async throws {
        let directory = try TestDirectory()
        defer { directory.remove() }
        try await withHangGuard(seconds: 120) {
            let host = try await SessionIsolationTests.start(directory)
            #expect(await settles { SessionIsolationTests.children(of: host.pid).count == 2 })
            // Six clients at once: the two started workers take two, the others find none started
            // and the host's idle target doubles (to 4, then 8).
            let burst = 6
            // The host's children, sampled from before the burst: the pool may have grown and
            // shrunk again by the time the sessions have answered, on a loaded machine.
            let peak = LockedValue(0)
            let sampling = Task {
                while !Task.isCancelled {
                    let count = SessionIsolationTests.children(of: host.pid).count
                    peak.withLock { $0 = max($0, count) }
                    try? await Task.sleep(for: .milliseconds(5))
                }
            }
            // Connected in one tight loop, each saying HELLO: the host accepts all six within
            // microseconds, long before a replacement worker can have started.
            let clients = try Self.connect(burst, to: directory.socket)
            // The busy ones and an idle pool grown to at least 4, never beyond the maximum of 8.
            let grown = await settles { peak.withLock { $0 } >= burst + 4 }
            sampling.cancel()
            _ = await sampling.value
            #expect(grown, "at most \(peak.withLock { $0 }) children")
            #expect(peak.withLock { $0 } <= burst + 8)
            for client in clients { client.closeSocket() }
            // Two quiet periods of 5 s at most halve 8 back to 2.
            #expect(
                await settles(within: 30) { SessionIsolationTests.children(of: host.pid).count == 2 },
                "\(SessionIsolationTests.children(of: host.pid))")

            let last = try await HostTesting.connect(directory)
            _ = try await HostTesting.methods(last).invokeMethod("exit")
            let exit = await host.waitForExit()
            #expect(exit.status == 0 && !exit.bySignal)
            #expect(exit.stderr == "")
        }
    }

    /// `count` raw clients, each connected and having said HELLO, one right after another.
    static func connect(_ count: Int, to socket: String) throws -> [RawClient] {
        var clients: [RawClient] = []
        for _ in 0..<count {
            let client = try RawClient(path: socket)
            try client.write(RawClient.hello())
            clients.append(client)
        }
        return clients
    }
}

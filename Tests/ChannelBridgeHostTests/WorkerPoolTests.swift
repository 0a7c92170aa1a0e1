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
            // Six clients at once: the two started workers take two, the others find none started.
            let burst = 6
            // Connected one after another without waiting for the HELLOs: a burst.
            var connections: [SocketConnection] = []
            for _ in 0..<burst {
                connections.append(
                    try await SocketConnection.connect(to: directory.socket, options: HostTesting.clientOptions))
            }
            for connection in connections { _ = try await connection.messenger.waitForPeerHello() }
            var pids = Set<Int>()
            for connection in connections { pids.insert(try await SessionIsolationTests.pid(connection)) }
            #expect(pids.count == burst)
            // The busy ones, and an idle pool grown to 4 or 8: never more than the maximum.
            let counts = LockedValue<[Int]>([])
            let grown = await settles {
                let count = SessionIsolationTests.children(of: host.pid).count
                counts.withLock { $0.append(count) }
                return count == burst + 4 || count == burst + 8
            }
            let seen = counts.withLock { Array(Set($0)).sorted() }
            #expect(grown, "children seen: \(seen)")
            #expect(seen.allSatisfy { $0 <= burst + 8 }, "children seen: \(seen)")
            for connection in connections {
                connection.close()
                await connection.waitUntilClosed()
            }
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
}

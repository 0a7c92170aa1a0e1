@testable import ChannelBridgeStore
import ChannelBridgeCodec
import ChannelBridgePlatform
import ChannelBridgeTestSupport
import Dispatch
import Testing

/// A change stream that ends while a commit is inside its critical section (holding `loading`,
/// its changes queued) ends at once: its termination and cancellation handlers never wait for a
/// lock a commit holds, and the consumer is woken only once the commit has released it. The commit is held there by the engine's test hook; the listener is
/// cancelled from a thread of its own, as the runtime cancels it, and must return while the
/// commit is still held.
@Suite struct ChangeStreamEndDuringCommitTests {
    @Test func aListenerCancelledWhileACommitIsHeldEndsAndTheCommitFinishes() async throws {
        try await TestDirectory.withPath { directory in
            let prefs = try AppGroupStore(dataDirectory: directory).group("group.local")
            let inside = Inbox<Void>()
            let release = DispatchSemaphore(value: 0)
            prefs.engine.commitHook.withLock {
                $0 = {
                    inside.put(()); release.wait()
                }
            }
            defer { release.signal() }
            let changes = try await prefs.changes()
            let consumer = Task { () -> [String] in
                var keys: [String] = []
                for await change in changes { keys.append(change.key) }
                return keys
            }
            let write = Task { try await prefs.set(.string("v"), forKey: "k") }
            try await withHangGuard { await inside.next() }
            // The commit holds `loading` now. Ending the listener (its handlers run inside
            // `cancel`) must not wait for it.
            try await withHangGuard { await onThread { consumer.cancel() } }
            prefs.engine.commitHook.withLock { $0 = nil }
            release.signal()
            // The consumer was handed the change before it was cancelled: it gets it, then the end.
            try await withHangGuard { () async throws in
                try await write.value
                #expect(await consumer.value == ["k"])
            }
            #expect(try await prefs.value(forKey: "k") == .string("v"))
        }
    }

    @Test func listenersThatComeAndGoDuringWritesNeverStallThem() async throws {
        try await TestDirectory.withPath { directory in
            let prefs = try AppGroupStore(dataDirectory: directory).group("group.local")
            try await withHangGuard { () async throws in
                try await withThrowingTaskGroup(of: Void.self) { group in
                    group.addTask {
                        for index in 0..<200 { try await prefs.set(.int64(Int64(index)), forKey: "k\(index % 7)") }
                    }
                    for _ in 0..<4 {
                        group.addTask {
                            for _ in 0..<25 {
                                let changes = try await prefs.changes()
                                let consumer = Task { for await _ in changes {} }
                                await Task.yield()
                                consumer.cancel()
                                await consumer.value
                            }
                        }
                    }
                    try await group.waitForAll()
                }
            }
            #expect(try await prefs.value(forKey: "k3") == .int64(199))  // the last index with index % 7 == 3
        }
    }
}

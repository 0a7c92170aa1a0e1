@testable import ChannelBridgeSharedPreferences
import ChannelBridgePlatform
import ChannelBridgeTestSupport
import Dispatch
import Testing

/// `SessionOrder` under the race its queue rules out: an operation that arrives while an earlier
/// one is being started (taken from the queue, its synchronous part not yet done) queues behind
/// it instead of overtaking it. Every thread held here is one of the test's own, never one of
/// the concurrency pool's.
@Suite struct SessionOrderTests {
    @Test func aWriteArrivingWhileAnEarlierOneIsStartingQueuesBehindIt() async throws {
        let order = SessionOrder()
        let log = LockedValue<[String]>([])
        let releaseRead = DispatchSemaphore(value: 0)
        let releaseFirst = DispatchSemaphore(value: 0)
        defer {
            releaseRead.signal()
            releaseFirst.signal()
        }
        let readRunning = Inbox<Void>()
        let firstStarting = Inbox<Void>()
        try await withHangGuard { () async throws in
            // A read runs at once on a thread of ours, until released: the thread that ends it
            // will start what waits behind it.
            let read = Task {
                await onThread {
                    order.runNow(.read) { () -> Int? in
                        readRunning.put(())
                        releaseRead.wait()
                        return 0
                    }
                }
            }
            await readRunning.next()
            // The first write waits for the read (queued before `Task.immediate` returns); its
            // synchronous part, the part that hands a write to the store, holds its thread.
            let first = Task.immediate {
                try await order.perform(.write) { () async throws -> Int in
                    log.withLock { $0.append("first starts") }
                    firstStarting.put(())
                    releaseFirst.wait()
                    log.withLock { $0.append("first reaches the store") }
                    return 1
                }
            }
            releaseRead.signal()
            await firstStarting.next()
            // The second write arrives while the first is being started.
            let second = Task.immediate {
                try await order.perform(.write) { () async throws -> Int in
                    log.withLock { $0.append("second reaches the store") }
                    return 2
                }
            }
            #expect(log.withLock { $0 } == ["first starts"])
            releaseFirst.signal()
            #expect(try await first.value == 1)
            #expect(try await second.value == 2)
            #expect(await read.value == 0)
            #expect(log.withLock { $0 } == ["first starts", "first reaches the store", "second reaches the store"])
        }
    }
}

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
        let order = SessionOrder(())
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

    /// A read answered where requests are read runs at once only when nothing earlier is still to
    /// take effect: not while a write runs, not while an operation waits; and it is not counted, so
    /// a write that arrives after it starts at once.
    @Test func aReadMayRunNowOnlyWithNothingEarlierPending() async throws {
        let order = SessionOrder(0)
        // Each ask reads the session's state in the same lock: the value set just before.
        let asks = LockedValue(0)
        @Sendable func mayReadNow() -> Bool {
            let ask = asks.withLock { count -> Int in
                count += 1
                return count
            }
            order.withContext { $0 = ask }
            let (context, may) = order.readingContext { $0 }
            #expect(context == ask)
            return may
        }
        #expect(mayReadNow())
        let releaseWrite = DispatchSemaphore(value: 0)
        defer { releaseWrite.signal() }
        let writeRunning = Inbox<Void>()
        let waiterQueued = Inbox<Void>()
        try await withHangGuard { () async throws in
            // A write runs on a thread of ours until released.
            let write = Task {
                await onThread {
                    order.runNow(.write) { () -> Int? in
                        writeRunning.put(())
                        releaseWrite.wait()
                        return 1
                    }
                }
            }
            await writeRunning.next()
            #expect(!mayReadNow(), "a write is running")
            // A read that arrives now waits behind it.
            let waiting = Task.immediate {
                let value = try await order.perform(.read) { () async throws -> Int in 2 }
                waiterQueued.put(())
                return value
            }
            releaseWrite.signal()
            #expect(await write.value == 1)
            #expect(try await waiting.value == 2)
            await waiterQueued.next()
            #expect(mayReadNow(), "nothing earlier is pending")
            // Asking counts nothing: a write may start right after.
            #expect(order.runNow(.write) { () -> Int? in 3 } == 3)

            // A read runs, and a write waits behind it: a read now would overtake the write.
            let releaseRead = DispatchSemaphore(value: 0)
            defer { releaseRead.signal() }
            let readRunning = Inbox<Void>()
            let read = Task {
                await onThread {
                    order.runNow(.read) { () -> Int? in
                        readRunning.put(())
                        releaseRead.wait()
                        return 4
                    }
                }
            }
            await readRunning.next()
            #expect(mayReadNow(), "reads run side by side")
            let queuedWrite = Task.immediate { try await order.perform(.write) { () async throws -> Int in 5 } }
            #expect(!mayReadNow(), "a write waits")
            releaseRead.signal()
            #expect(await read.value == 4)
            #expect(try await queuedWrite.value == 5)
            #expect(mayReadNow())
        }
    }
}

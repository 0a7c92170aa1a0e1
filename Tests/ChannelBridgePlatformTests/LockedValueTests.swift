import ChannelBridgePlatform
import Foundation
import ChannelBridgeTestSupport
import Testing

@Suite struct LockedValueTests {
    struct Refused: Error, Equatable {}

    final class Tracked: Sendable {}

    @Test func threadsIncrementingUnderTheLockLoseNothing() async {
        let counter = LockedValue(0)
        let finished = Inbox<Void>()
        for index in 0..<4 {
            DetachedThread.start(name: "locked value \(index)") {
                for _ in 0..<10_000 { counter.withLock { $0 += 1 } }
                finished.put(())
            }
        }
        for _ in 0..<4 { await finished.next() }
        #expect(counter.withLock { $0 } == 40_000)
    }

    /// `Scripts/sanitize thread` sets CHANNELBRIDGE_PTHREAD_LOCKS for the build and the run: a lock
    /// ThreadSanitizer cannot see would make every report in that run noise.
    @Test func theBuildUsesThePthreadLockExactlyWhenTheEnvironmentAsksForIt() {
        let asked = ProcessInfo.processInfo.environment["CHANNELBRIDGE_PTHREAD_LOCKS"] != nil
        #expect(LockedValue<Int>.backing == (asked ? .pthreadMutex : .mutex))
    }

    @Test func copiesShareOneValue() {
        let original = LockedValue([1])
        let copy = original
        copy.withLock { $0.append(2) }
        #expect(original.withLock { $0 } == [1, 2])
    }

    @Test func aThrowingBodyKeepsItsChangesAndReleasesTheLock() {
        let value = LockedValue(0)
        #expect(throws: Refused()) {
            try value.withLock { (value: inout Int) throws(Refused) in
                value = 7
                throw Refused()
            }
        }
        // Would deadlock had the throw left the mutex locked.
        #expect(value.withLock { $0 } == 7)
    }

    @Test func theValueIsReleasedWithTheLastCopy() {
        weak var weakTracked: Tracked?
        do {
            let lock = LockedValue(Tracked())
            weakTracked = lock.withLock { $0 }
            #expect(weakTracked != nil)
        }
        #expect(weakTracked == nil)
    }
}

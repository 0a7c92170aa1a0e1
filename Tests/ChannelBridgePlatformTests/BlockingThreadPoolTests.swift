import ChannelBridgePlatform
import ChannelBridgeTestSupport
import Dispatch
import Glibc
import Testing

@Suite struct BlockingThreadPoolTests {
    @Test func runsWorkInTheOrderSubmittedOnNamedThreads() async {
        let pool = BlockingThreadPool(name: "cb test pool", maximumThreads: 1)
        let done = Inbox<(Int, String)>()
        for number in 0..<100 {
            pool.submit { done.put((number, DetachedThreadTests.currentThreadName())) }
        }
        var seen: [Int] = []
        for _ in 0..<100 {
            let (number, name) = await done.next()
            seen.append(number)
            #expect(name == "cb test pool")
        }
        #expect(seen == Array(0..<100))
        #expect(pool.threadCount == 1)
    }

    /// Six blocking items on a pool of three: three run, the others wait their turn in order, and
    /// the same three threads serve later work.
    @Test func neverRunsMoreThreadsThanItsMaximumAndKeepsThem() async {
        let pool = BlockingThreadPool(name: "cb test pool", maximumThreads: 3)
        let started = Inbox<(Int, UInt)>()
        let gates = (0..<6).map { _ in DispatchSemaphore(value: 0) }
        for number in 0..<6 {
            pool.submit {
                started.put((number, UInt(pthread_self())))
                gates[number].wait()
            }
        }
        var running: [Int] = []
        var threads: Set<UInt> = []
        for _ in 0..<3 {
            let (number, thread) = await started.next()
            running.append(number)
            threads.insert(thread)
        }
        #expect(Set(running) == [0, 1, 2])
        #expect(threads.count == 3)
        #expect(pool.threadCount == 3)
        // Only when one of the three ends does the next item start, and it is the oldest waiting.
        for next in 3..<6 {
            gates[next - 3].signal()
            let (number, thread) = await started.next()
            #expect(number == next)
            #expect(threads.contains(thread))
        }
        for gate in gates[3...] { gate.signal() }
        let later = Inbox<UInt>()
        for _ in 0..<10 { pool.submit { later.put(UInt(pthread_self())) } }
        for _ in 0..<10 { #expect(threads.contains(await later.next())) }
        #expect(pool.threadCount == 3)
    }

    struct Refusal: Error, Equatable { let number: Int }

    /// `run` suspends the task, runs the work on a pool thread, and hands back its value or its
    /// typed error.
    @Test func runReturnsTheWorksValueOrTypedErrorFromAPoolThread() async {
        let pool = BlockingThreadPool(name: "cb test run", maximumThreads: 1)
        let value = await pool.run { () -> String in DetachedThreadTests.currentThreadName() }
        #expect(value == "cb test run")
        do {
            _ = try await pool.run { () throws(Refusal) -> Int in throw Refusal(number: 7) }
            Issue.record("run returned instead of throwing")
        } catch {
            #expect(error == Refusal(number: 7))
        }
        #expect(pool.threadCount == 1)
    }
}

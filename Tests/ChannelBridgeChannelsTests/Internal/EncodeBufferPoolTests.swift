@testable import ChannelBridgeChannels
import Testing

/// `EncodeBufferPool`: one spare buffer at most, never one above its capacity bound.
@Suite struct EncodeBufferPoolTests {
    static func address(_ bytes: [UInt8]) -> UInt {
        bytes.withUnsafeBufferPointer { UInt(bitPattern: $0.baseAddress) }
    }

    @Test func aBufferGivenBackIsTheNextOneTakenAndOnlyOneIsKept() {
        let pool = EncodeBufferPool()
        #expect(pool.take().capacity == 0, "an empty pool hands out a new empty array")
        var first: [UInt8] = []
        first.reserveCapacity(100)
        first.append(1)
        let kept = Self.address(first)
        pool.giveBack(first)
        var second: [UInt8] = []
        second.reserveCapacity(200)
        pool.giveBack(second)  // a spare is kept already: this one is freed
        let taken = pool.take()
        #expect(Self.address(taken) == kept)
        #expect(pool.take().capacity == 0, "the pool held one buffer, not two")
    }

    @Test func aBufferOverTheBoundIsNotKept() {
        let pool = EncodeBufferPool()
        var big: [UInt8] = []
        big.reserveCapacity(EncodeBufferPool.maxKeptCapacity + 1)
        pool.giveBack(big)
        #expect(pool.take().capacity == 0)
    }

    /// Calls on several threads at once never hold one buffer together: each writes its own mark
    /// into what it took and finds it unchanged before giving the buffer back. A pool whose flag
    /// let two threads at the spare at once (a load instead of the exchange) corrupted the array
    /// and crashed this test in each of three runs; `Scripts/sanitize thread` also checks that
    /// the flag orders every access.
    @Test func concurrentCallsNeverShareABuffer() async {
        let pool = EncodeBufferPool()
        let clashes = await withTaskGroup(of: Int.self) { group in
            for worker in 0..<4 {
                group.addTask {
                    var clashes = 0
                    for round in 0..<20_000 {
                        var buffer = pool.take()
                        let mark = UInt8(truncatingIfNeeded: worker &* 31 &+ round)
                        if buffer.isEmpty { buffer.append(mark) } else { buffer[0] = mark }
                        for _ in 0..<(round % 8) { buffer.append(mark) }
                        if buffer.contains(where: { $0 != mark }) { clashes += 1 }
                        buffer.removeAll(keepingCapacity: true)
                        pool.giveBack(buffer)
                    }
                    return clashes
                }
            }
            return await group.reduce(0, +)
        }
        #expect(clashes == 0)
    }
}

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
        pool.giveBack(second)   // a spare is kept already: this one is freed
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
}

import ChannelBridgeBytes
import ChannelBridgeMessenger
import Testing

/// `HandlerMessage` as a view of a received `Payload`: the bytes where they lie, a split
/// payload's last part as `tail`, and an array to keep that is the payload's own storage only
/// when the payload owns it whole.
@Suite struct HandlerMessageTests {
    static func address(_ bytes: [UInt8]) -> UInt {
        bytes.withUnsafeBufferPointer { UInt(bitPattern: $0.baseAddress) }
    }

    @Test func aLentRangeIsReadWhereItLiesAndCopiedToBeKept() {
        let buffer: [UInt8] = [9, 1, 2, 3, 9]
        let (bytes, address, kept, tail) = HandlerMessage.reading(Payload(lending: buffer, range: 1..<4)) {
            ($0.bytes.map(Array.init), $0.bytes.map { UInt(bitPattern: $0.baseAddress) }, $0.array, $0.tail)
        }
        #expect(bytes == [1, 2, 3] && address == Self.address(buffer) + 1)
        #expect(kept == [1, 2, 3] && kept.map(Self.address) != Self.address(buffer))
        #expect(tail == nil)
    }

    @Test func anOwnedArrayIsKeptWithoutACopy() {
        let bytes: [UInt8] = [4, 5, 6]
        let kept = HandlerMessage.reading(Payload(bytes)) { $0.array }
        #expect(kept == bytes && kept.map(Self.address) == Self.address(bytes))
    }

    @Test func aSplitPayloadIsItsHeadThenItsTail() {
        let tail: [UInt8] = [7, 8]
        let (head, got, count, kept) = HandlerMessage.reading(Payload([1, 2], segments: [tail])) {
            ($0.bytes.map(Array.init), $0.tail, $0.count, $0.array)
        }
        #expect(head == [1, 2] && got == tail && got.map(Self.address) == Self.address(tail))
        #expect(count == 4 && kept == [1, 2, 7, 8])
    }

    @Test func nilIsANullPayload() {
        let (bytes, count, kept) = HandlerMessage.reading(Payload?.none) { ($0.bytes, $0.count, $0.array) }
        #expect(bytes == nil && count == 0 && kept == nil)
    }
}

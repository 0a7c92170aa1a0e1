import ChannelBridgeBytes
import Testing

/// `Payload`'s shapes (one array, a lent buffer's range, segments) and what each gives: exact
/// bytes, and no copy where the payload is the whole of an array it owns.
@Suite struct PayloadTests {
    /// The address of `bytes`' storage, for telling the same array from a copy.
    static func address(_ bytes: [UInt8]) -> UInt {
        bytes.withUnsafeBufferPointer { UInt(bitPattern: $0.baseAddress) }
    }

    @Test func oneArrayIsItsWholeAndGivesItBackUncopied() {
        let bytes: [UInt8] = [1, 2, 3, 4]
        let payload = Payload(bytes)
        #expect(payload.count == 4)
        #expect(payload.readableRange == 0..<4)
        #expect(payload.isContiguous)
        #expect(!payload.isLent)
        #expect(payload.array == [1, 2, 3, 4])
        #expect(Self.address(payload.array) == Self.address(bytes))
        #expect(Self.address(payload.head) == Self.address(bytes))
        #expect(payload.parts.count == 1)
        #expect(Self.address(payload.parts[0]) == Self.address(bytes))
        #expect(payload.withUnsafeReadableBytes { Array($0) } == [1, 2, 3, 4])
        #expect(payload.withUnsafeHeadBytes { UInt(bitPattern: $0.baseAddress) } == Self.address(bytes))
    }

    @Test func anEmptyArrayIsAnEmptyPayload() {
        let payload = Payload([])
        #expect(payload.count == 0)
        #expect(payload.array == [])
        #expect(payload.withUnsafeReadableBytes { $0.count } == 0)
    }

    @Test func aLentBufferIsItsFirstCountBytesReadWhereTheyLieAndCopiedToBeKept() {
        let buffer: [UInt8] = [9, 8, 7, 6, 5, 4]
        let payload = Payload(lending: buffer, count: 3)
        #expect(payload.isLent)
        #expect(payload.count == 3)
        #expect(payload.readableRange == 0..<3)
        #expect(payload.withUnsafeReadableBytes { Array($0) } == [9, 8, 7])
        // Read where it lies: the buffer's own bytes.
        #expect(payload.withUnsafeReadableBytes { UInt(bitPattern: $0.baseAddress) } == Self.address(buffer))
        // Kept: a copy, so the owner may reuse its buffer.
        #expect(payload.array == [9, 8, 7])
        #expect(Self.address(payload.array) != Self.address(buffer))
        // Lent as a whole, it is still copied to be kept.
        let whole = Payload(lending: buffer, count: buffer.count)
        #expect(whole.array == buffer)
        #expect(Self.address(whole.array) != Self.address(buffer))
    }

    @Test func aLentRangeInTheMiddleOfABufferIsThoseBytes() {
        let buffer: [UInt8] = [0, 1, 2, 3, 4, 5, 6, 7]
        let payload = Payload(lending: buffer, range: 2..<5)
        #expect(payload.count == 3)
        #expect(payload.array == [2, 3, 4])
        #expect(payload.head == [2, 3, 4])
        #expect(payload.withUnsafeHeadBytes { UInt(bitPattern: $0.baseAddress) } == Self.address(buffer) + 2)
        #expect(payload.owned().array == [2, 3, 4])
        #expect(!payload.owned().isLent)
    }

    @Test func aCheckedRangeIsLentAsARangeIs() {
        let buffer: [UInt8] = [0, 1, 2, 3]
        let payload = Payload(lending: buffer, checkedRange: 1..<3)
        #expect(payload == Payload(lending: buffer, range: 1..<3))
        #expect(payload.isLent && payload.readableRange == 1..<3 && payload.array == [1, 2])
    }

    @Test func firstSegmentIsTheSplitPayloadsLastPart() {
        let tail: [UInt8] = [5, 6]
        #expect(Payload([1], segments: [tail]).firstSegment == tail)
        #expect(Payload([1]).firstSegment == nil)
        #expect(Payload(lending: [1, 2], count: 1).firstSegment == nil)
    }

    @Test func segmentsFollowTheFirstArrayBackToBack() {
        let first: [UInt8] = [1, 2]
        let large = [UInt8](repeating: 0xAB, count: 70_000)
        let payload = Payload(first, segments: [large, [3]])
        #expect(!payload.isContiguous)
        #expect(payload.count == 70_003)
        #expect(payload.readableRange == 0..<2)
        var expected: [UInt8] = [1, 2]
        expected.append(contentsOf: large)
        expected.append(3)
        #expect(payload.array == expected)
        #expect(payload.withUnsafeReadableBytes { Array($0) } == expected)
        #expect(payload.withUnsafeHeadBytes { Array($0) } == [1, 2])
        // Each part goes out of its own array: the large one is the caller's, uncopied.
        let parts = payload.parts
        #expect(parts == [[1, 2], large, [3]])
        #expect(Self.address(parts[0]) == Self.address(first))
        #expect(Self.address(parts[1]) == Self.address(large))
    }

    @Test func noSegmentsIsOneArrayAndARangeSetKeepsTheLending() {
        #expect(Payload([1, 2], segments: []).isContiguous)
        #expect(Payload([1, 2], segments: []).segments == [])
        var lent = Payload(lending: [0, 1, 2, 3, 4], count: 5)
        lent.readableRange = 1..<3
        #expect(lent.isLent)
        #expect(lent.array == [1, 2])
        var owned = Payload([0, 1, 2, 3, 4])
        owned.readableRange = 1..<3
        #expect(!owned.isLent)
        #expect(owned.array == [1, 2])
    }

    @Test func anEmptyFirstArrayWithSegmentsIsTheSegments() {
        let payload = Payload([], segments: [[6], [7, 8]])
        #expect(payload.count == 3)
        #expect(payload.array == [6, 7, 8])
    }

    @Test func ownedCutsALentBufferToItsBytesInPlaceWhenItHoldsTheOnlyReference() {
        var buffer = [UInt8](repeating: 0, count: 64)
        buffer[0] = 1
        buffer[1] = 2
        let address = Self.address(buffer)
        let owned = Payload(lending: consume buffer, count: 2).owned()
        #expect(!owned.isLent)
        #expect(owned.array == [1, 2])
        #expect(Self.address(owned.storage) == address)
        // Owned and whole now: `array` is the storage itself.
        #expect(Self.address(owned.array) == address)
    }

    @Test func ownedLeavesAnOwnedPayloadAsItIs() {
        let bytes: [UInt8] = [4, 5]
        let owned = Payload(bytes, segments: [[6]]).owned()
        #expect(Self.address(owned.storage) == Self.address(bytes))
        #expect(owned.array == [4, 5, 6])
    }

    @Test func takeStorageGivesTheBufferBackAndEmptiesThePayload() {
        let buffer: [UInt8] = [1, 2, 3, 4]
        let address = Self.address(buffer)
        var payload = Payload(lending: buffer, count: 2)
        let taken = payload.takeStorage()
        #expect(Self.address(taken) == address)
        #expect(taken == [1, 2, 3, 4])
        #expect(payload.count == 0)
        #expect(payload.storage.isEmpty)
    }

    @Test func equalityIsSamePartsSameBytesWhateverTheRoomOrLending() {
        #expect(Payload([1, 2]) == Payload(lending: [1, 2, 9, 9], count: 2))
        #expect(Payload([1, 2]) == Payload(lending: [0, 1, 2], range: 1..<3))
        #expect(Payload([1, 2]) != Payload([1, 3]))
        #expect(Payload([1, 2]) != Payload([1, 2, 3]))
        #expect(Payload([1], segments: [[2]]) != Payload([1, 2]))
        #expect(Payload([1], segments: [[2]]) == Payload(lending: [1, 7], count: 1).withSegment([2]))
        #expect(Set([Payload([1, 2]), Payload(lending: [1, 2, 3], count: 2)]).count == 1)
    }

    @Test func describesItsPartsAndLending() {
        #expect(Payload([1, 2, 3]).description == "Payload(3 bytes)")
        #expect(
            Payload([1, 2], segments: [[UInt8](repeating: 0, count: 70_000)]).description == "Payload(2 + 70000 bytes)")
        #expect(Payload(lending: [1, 2, 3, 4, 5, 6], count: 5).description == "Payload(5 bytes, lent)")
    }
}

extension Payload {
    /// This payload with `segment` appended (a test's way to build a lent payload with segments).
    fileprivate func withSegment(_ segment: [UInt8]) -> Payload {
        var copy = self
        copy.segments.append(segment)
        return copy
    }
}

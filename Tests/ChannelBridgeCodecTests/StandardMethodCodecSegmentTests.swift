import ChannelBridgeBytes
import ChannelBridgeCodec
import ChannelBridgeTestSupport
import Testing

/// `encodeMethodCallSegments` and `encodeSuccessEnvelopeSegments`: the same bytes as the one-array
/// encoders, with each `Uint8List` of 64 KiB or more left in the value's own array.
@Suite struct StandardMethodCodecSegmentTests {
    let codec = StandardMethodCodec()

    static func bytes(_ count: Int) -> [UInt8] {
        (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 13 &+ 1) }
    }

    static func joined(_ payload: Payload) -> [UInt8] {
        payload.head + Array(payload.segments.joined())
    }

    static func sameStorage(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        a.withUnsafeBufferPointer { x in b.withUnsafeBufferPointer { y in x.baseAddress == y.baseAddress } }
    }

    @Test func smallValuesAreOneSegment() throws {
        let call = MethodCall("echo", arguments: .list([.uint8List(Self.bytes(65_535)), .float64(1.5)]))
        let request = try codec.encodeMethodCallSegments(call)
        #expect(request.head == (try codec.encodeMethodCall(call)) && request.isContiguous && !request.isLent)
        let reply = try codec.encodeSuccessEnvelopeSegments(.string("ok"))
        #expect(reply.head == (try codec.encodeSuccessEnvelope(.string("ok"))) && reply.isContiguous)
    }

    @Test func largeByteListsAreKeptUncopied() throws {
        let large = Self.bytes(1 << 16)
        let call = MethodCall("echo", arguments: .uint8List(large))
        let segments = try codec.encodeMethodCallSegments(call)
        // 07 04 "echo", then 08 and the 5-byte size; then the list's own array.
        #expect(segments.head == [0x07, 0x04, 0x65, 0x63, 0x68, 0x6F, 0x08, 0xFF, 0x00, 0x00, 0x01, 0x00])
        #expect(segments.segments.count == 1 && Self.sameStorage(segments.segments[0], large))
        #expect(Self.joined(segments) == (try codec.encodeMethodCall(call)))

        let reply = try codec.encodeSuccessEnvelopeSegments(.uint8List(large))
        #expect(reply.segments.count == 1 && Self.sameStorage(reply.segments[0], large))
        #expect(Self.joined(reply) == (try codec.encodeSuccessEnvelope(.uint8List(large))))
    }

    /// Alignment counts from the start of the whole message, across kept segments: a float64 and a
    /// typed list after a kept byte list of odd length are padded as in the one-array encoding.
    @Test(arguments: [65_536, 65_537, 70_001, 100_003])
    func alignmentAfterAKeptSegment(length: Int) throws {
        let large = Self.bytes(length)
        let value: StandardValue = .map([
            .init("first", .uint8List(large)),
            .init("then", .float64(-2.25)),
            .init("second", .uint8List(large)),
            .init("ints", .int64List([1, -1])),
            .init("small", .uint8List([1, 2, 3])),
        ])
        let segments = try codec.encodeSuccessEnvelopeSegments(value)
        #expect(segments.segments.count == 4)
        #expect(Self.joined(segments) == (try codec.encodeSuccessEnvelope(value)))
        #expect(try codec.decodeEnvelope(Self.joined(segments)).get() == value)
    }
}

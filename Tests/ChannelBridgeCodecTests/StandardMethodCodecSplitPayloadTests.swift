import ChannelBridgeCodec
import ChannelBridgeTestSupport
import Testing

/// Calls and envelopes received in two parts: where a trailing `Uint8List`
/// starts, and decoding that adopts the last part as the list, with every other outcome the one
/// the message in one piece gives.
@Suite struct StandardMethodCodecSplitPayloadTests {
    let codec = StandardMethodCodec()

    static func bytes(_ count: Int) -> [UInt8] {
        (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 29 &+ 3) }
    }

    static func sameStorage(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        a.withUnsafeBufferPointer { x in b.withUnsafeBufferPointer { y in x.baseAddress == y.baseAddress } }
    }

    func callStart(_ bytes: [UInt8], prefix: Int? = nil) -> Int? {
        bytes.withUnsafeBytes {
            StandardMethodCodec.byteListStart(
                inCall: UnsafeRawBufferPointer(rebasing: $0[..<(prefix ?? bytes.count)]),
                count: bytes.count)
        }
    }

    func envelopeStart(_ bytes: [UInt8], prefix: Int? = nil) -> Int? {
        bytes.withUnsafeBytes {
            StandardMethodCodec.byteListStart(
                inEnvelope: UnsafeRawBufferPointer(rebasing: $0[..<(prefix ?? bytes.count)]),
                count: bytes.count)
        }
    }

    @Test(arguments: [1, 253, 254, 65_535, 65_536])
    func theListStartsAfterItsSizeInEachOfTheThreeForms(count: Int) throws {
        // Sizes below 254 take one byte, up to 65,535 three, beyond five.
        let sizeBytes = count < 254 ? 1 : count <= 65_535 ? 3 : 5
        let call = try codec.encodeMethodCall(MethodCall("echo", arguments: .uint8List(Self.bytes(count))))
        #expect(callStart(call) == 1 + 1 + 4 + 1 + sizeBytes)
        let envelope = try codec.encodeSuccessEnvelope(.uint8List(Self.bytes(count)))
        #expect(envelopeStart(envelope) == 1 + 1 + sizeBytes)
        // The prefix need only reach the list's first byte.
        #expect(callStart(call, prefix: 1 + 1 + 4 + 1 + sizeBytes) == 1 + 1 + 4 + 1 + sizeBytes)
        #expect(callStart(call, prefix: 1 + 1 + 4 + sizeBytes) == nil)
        #expect(envelopeStart(envelope, prefix: 1 + sizeBytes) == nil)
    }

    @Test func otherShapesAreNotSplit() throws {
        let list = StandardValue.uint8List(Self.bytes(300))
        let shapes: [[UInt8]] = [
            try codec.encodeMethodCall(MethodCall("echo", arguments: .list([list]))),
            try codec.encodeMethodCall(MethodCall("echo", arguments: .string("abc"))),
            try codec.encodeMethodCall(MethodCall("echo", arguments: .uint8List([]))),
            try codec.encodeSuccessEnvelope(.list([list])),
            try codec.encodeErrorEnvelope(
                MethodError(code: "e", message: nil, details: list), includingStacktrace: false),
        ]
        for bytes in shapes {
            #expect(callStart(bytes) == nil)
            #expect(envelopeStart(bytes) == nil)
        }
        // A list that ends before the message does, or claims more than it has.
        let call = try codec.encodeMethodCall(MethodCall("echo", arguments: list))
        #expect(callStart(call + [0]) == nil)
        #expect(callStart(Array(call.dropLast())) == nil)
        // A call is not an envelope and the other way round.
        #expect(envelopeStart(call) == nil)
        #expect(callStart(try codec.encodeSuccessEnvelope(list)) == nil)
    }

    @Test func theListIsTheLastPartUncopied() throws {
        let call = try codec.encodeMethodCall(MethodCall("echo", arguments: .uint8List(Self.bytes(70_000))))
        let start = try #require(callStart(call))
        let tail = Array(call[start...])
        let decoded = try Array(call[..<start]).withUnsafeBytes { try codec.decodeMethodCall(head: $0, tail: tail) }
        guard decoded.method == "echo", case .uint8List(let list) = decoded.arguments else {
            Issue.record("decoded \(decoded)")
            return
        }
        #expect(list == Self.bytes(70_000) && Self.sameStorage(list, tail))

        let envelope = try codec.encodeSuccessEnvelope(.uint8List(Self.bytes(70_000)))
        let at = try #require(envelopeStart(envelope))
        let envelopeTail = Array(envelope[at...])
        guard
            case .success(.uint8List(let result)) = try codec.decodeEnvelope(
                head: Array(envelope[..<at]), tail: envelopeTail)
        else {
            Issue.record("the envelope did not decode to its list")
            return
        }
        #expect(result == Self.bytes(70_000) && Self.sameStorage(result, envelopeTail))
    }

    /// Every split point of valid and broken messages: the same value, or the same error (code,
    /// text and offset), as decoding the message in one piece.
    @Test func everySplitGivesWhatTheWholeMessageGives() throws {
        let list = StandardValue.uint8List(Self.bytes(20))
        var calls: [[UInt8]] = [
            try codec.encodeMethodCall(MethodCall("echo", arguments: list)),
            try codec.encodeMethodCall(MethodCall("echo", arguments: .list([.int32(1), list]))),
            try codec.encodeMethodCall(MethodCall("m", arguments: .string("x"))),
        ]
        calls += [
            Array(calls[0].dropLast()), calls[0] + [0], [0x07, 0x01, 0x6D, 0x08, 0xFF, 0, 0, 0, 0x7F, 1, 2],
            [0x03, 0, 0, 0, 0], [0x07, 0x02, 0xC3, 0x28, 0x08, 0x01, 0x09],
        ]
        for bytes in calls {
            let whole = Result { () throws(CodecError) in try codec.decodeMethodCall(bytes) }
            for split in 1..<bytes.count {
                let parts = Array(bytes[..<split]).withUnsafeBytes { raw in
                    Result { () throws(CodecError) in
                        try codec.decodeMethodCall(head: raw, tail: Array(bytes[split...]))
                    }
                }
                #expect(parts == whole, "call \(bytes) split at \(split)")
            }
        }

        var envelopes: [[UInt8]] = [
            try codec.encodeSuccessEnvelope(list),
            try codec.encodeSuccessEnvelope(.map([.string("k"): list])),
            try codec.encodeErrorEnvelope(
                MethodError(code: "e", message: "m", details: list), includingStacktrace: true),
        ]
        envelopes += [
            Array(envelopes[0].dropLast()), envelopes[0] + [1], [0x02, 0x08, 0x01, 0x05], [0x00, 0x08, 0x05, 1],
        ]
        for bytes in envelopes {
            let whole = Result { () throws(CodecError) in try codec.decodeEnvelope(bytes) }
            for split in 1..<bytes.count {
                let parts = Result { () throws(CodecError) in
                    try codec.decodeEnvelope(head: Array(bytes[..<split]), tail: Array(bytes[split...]))
                }
                #expect(parts == whole, "envelope \(bytes) split at \(split)")
            }
        }
    }
}

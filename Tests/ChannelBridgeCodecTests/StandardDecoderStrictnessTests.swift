import ChannelBridgeCodec
import ChannelBridgeTestSupport
import Testing

/// Every rejection rule, with the code and the offset it reports.
@Suite struct StandardDecoderStrictnessTests {
    let codec = StandardMessageCodec()

    @Test(
        arguments: [
            ("0f", CodecError.Code.unknownType, 0),
            ("0c01 7f", .unknownType, 2),
            ("80 09000000", .unknownType, 0),
            ("030100", .truncated, 1),
            ("0401020304", .truncated, 1),
            ("06 000000", .truncated, 1),
            ("0301000000ff", .trailingBytes, 5),
            ("07 02 c328", .invalidUTF8, 2),
            ("07 03 eda080", .invalidUTF8, 2),
            ("0cffffffffff", .sizeTooLarge, 0),
            ("08ff00000001", .sizeTooLarge, 0),
            ("0d02 00", .sizeTooLarge, 0),
            ("0aff00000010 0000", .sizeTooLarge, 0),
            ("07 05 6162", .sizeTooLarge, 0),
        ] as [(String, CodecError.Code, Int)])
    func rejects(input: String, code: CodecError.Code, offset: Int) {
        let error = codecError { () throws(CodecError) in try codec.decode(hex(input)) }
        #expect(error?.code == code, "\(input)")
        #expect(error?.offset == offset, "\(input): \(String(describing: error))")
    }

    @Test func hugeCountFailsBeforeAllocating() {
        // A 5-byte message claiming 4 billion elements: the check happens before any allocation,
        // which is what keeps this from taking seconds or exhausting memory.
        for tag: UInt8 in [8, 9, 10, 11, 12, 13, 14] {
            let error = codecError { () throws(CodecError) in try codec.decode([tag, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF]) }
            #expect(error?.code == .sizeTooLarge, "tag \(tag)")
        }
    }

    @Test func nestingLimit() throws {
        func nested(_ depth: Int) -> [UInt8] { Array([[UInt8]](repeating: [0x0C, 0x01], count: depth).joined()) + [0] }
        var expected: StandardValue = .null
        for _ in 0..<1_000 { expected = .list([expected]) }
        #expect(try codec.decode(nested(1_000)) == expected)
        let error = codecError { () throws(CodecError) in try codec.decode(nested(1_001)) }
        #expect(error?.code == .nestingTooDeep)
        #expect(error?.offset == 2_000)
        let shallow = StandardMessageCodec(maxDepth: 3)
        #expect(codecError { () throws(CodecError) in try shallow.decode(nested(4)) }?.code == .nestingTooDeep)
    }

    @Test func deepNestingOnATaskThreadDoesNotOverflow() async throws {
        let bytes = Array([[UInt8]](repeating: [0x0C, 0x01], count: 100_000).joined()) + [0]
        let error = await Task.detached {
            codecError { () throws(CodecError) in try StandardMessageCodec().decode(bytes) }
        }.value
        #expect(error?.code == .nestingTooDeep)
    }

    @Test func errorsSayWhatAndWhere() {
        let error = codecError { () throws(CodecError) in try codec.decode(hex("0c02 03010000")) }
        #expect(error?.description == "truncated int32: needs 4 bytes, 3 left (at byte 3)")
    }
}

import ChannelBridgeCodec
import ChannelBridgeTestSupport
import Testing

@Suite struct StandardMethodCodecTests {
    let codec = StandardMethodCodec()

    @Test func methodCallIsNameThenArguments() throws {
        #expect(try codec.encodeMethodCall(MethodCall("exit")) == hex("07 04 65786974 00"))
        let call = MethodCall("abc", arguments: .float64(1.5))
        // The float64 padding counts the method name's bytes: tag at offset 5, value at 8.
        #expect(try codec.encodeMethodCall(call) == hex("0703616263 06 0000 000000000000f83f"))
        #expect(try codec.decodeMethodCall(try codec.encodeMethodCall(call)) == call)
    }

    @Test func envelopes() throws {
        #expect(try codec.encodeSuccessEnvelope(.float64(1.5)) == hex("00 06 000000000000 000000000000f83f"))
        let error = MethodError(code: "E", message: "m", details: ["line": 10])
        let bytes = try codec.encodeErrorEnvelope(error)
        #expect(bytes == hex("01 070145 07016d 0d01 07046c696e65 030a000000"))
        #expect(try codec.decodeEnvelope(bytes) == .error(error))
        #expect(try codec.decodeEnvelope(hex("0000")) == .success(.null))
    }

    @Test func stacktraceIsEncodedAndDecoded() throws {
        let error = MethodError(code: "E", message: nil, details: nil, stacktrace: "at a")
        let bytes = try codec.encodeErrorEnvelope(error)
        #expect(bytes == hex("01 070145 00 00 070461742061"))
        #expect(try codec.decodeEnvelope(bytes) == .error(error))
        let nullSlot = try codec.encodeErrorEnvelope(MethodError(code: "E"), includingStacktrace: true)
        #expect(nullSlot == hex("01 070145 00 00 00"))
        #expect(try codec.decodeEnvelope(nullSlot) == .error(MethodError(code: "E")))
    }

    @Test(
        arguments: [
            ("", CodecError.Code.invalidMethodCall, 0),
            ("0301000000 00", .invalidMethodCall, 0),
            ("0703666f6f 00 00", .trailingBytes, 6),
            ("0703666f", .sizeTooLarge, 0),
        ] as [(String, CodecError.Code, Int)])
    func rejectsBadMethodCalls(input: String, code: CodecError.Code, offset: Int) {
        let error = codecError { () throws(CodecError) in try codec.decodeMethodCall(hex(input)) }
        #expect(error?.code == code, "\(input)")
        #expect(error?.offset == offset, "\(input)")
    }

    @Test(
        arguments: [
            ("", CodecError.Code.invalidEnvelope, 0),
            ("0200", .invalidEnvelope, 0),
            ("ff", .invalidEnvelope, 0),
            ("0000 00", .trailingBytes, 2),
            ("01 0301000000 00 00", .invalidEnvelope, 1),
            ("01 070145 0301000000 00", .invalidEnvelope, 4),
            ("01 070145 00 00 00 00", .trailingBytes, 7),
            ("01 070145", .truncated, 4),
        ] as [(String, CodecError.Code, Int)])
    func rejectsBadEnvelopes(input: String, code: CodecError.Code, offset: Int) {
        let error = codecError { () throws(CodecError) in try codec.decodeEnvelope(hex(input)) }
        #expect(error?.code == code, "\(input)")
        #expect(error?.offset == offset, "\(input)")
    }
}

import ChannelBridgeCodec
import Testing

@Suite struct JSONCodecTests {
    let codec = JSONMessageCodec()
    let method = JSONMethodCodec()

    func text(_ bytes: [UInt8]) -> String { String(decoding: bytes, as: UTF8.self) }

    @Test func encodesCompactJSONInMapOrder() throws {
        let value: StandardValue = ["b": 1, "a": [true, .null, 1.5, "x\"\n/é"], "big": .int64(1 << 40)]
        #expect(text(try codec.encode(value)) == #"{"b":1,"a":[true,null,1.5,"x\"\n/é"],"big":1099511627776}"#)
        #expect(text(try codec.encode(.float64(1.0))) == "1.0")
        #expect(text(try codec.encode(.int32List([1, -2]))) == "[1,-2]")
    }

    @Test func decodesNumbersByShape() throws {
        #expect(try codec.decode(Array("42".utf8)) == .int32(42))
        #expect(try codec.decode(Array("4294967296".utf8)) == .int64(4_294_967_296))
        #expect(try codec.decode(Array("1e2".utf8)) == .float64(100))
        #expect(try codec.decode(Array(" [1.5] ".utf8)) == [.float64(1.5)])
        #expect(try codec.decode(Array(#"{"z":1,"a":2}"#.utf8)) == ["z": 1, "a": 2])
        #expect(try codec.decode([]) == .null)
        #expect(try codec.decode(Array(#""\ud83d\ude02""#.utf8)) == "😂")
    }

    @Test func refusesWhatJSONCannotCarry() {
        #expect(codecError { () throws(CodecError) in try codec.encode(.map([.init(1, 2)])) }?.code == .unencodable)
        #expect(codecError { () throws(CodecError) in try codec.encode(.float64(.nan)) }?.code == .unencodable)
        #expect(codecError { () throws(CodecError) in try codec.encode(.float64(-.infinity)) }?.code == .unencodable)
    }

    @Test(arguments: ["{", "[1,]", "01", "1 2", "\"\u{01}\"", "nul", "{\"a\" 1}", "\"\\x\"", "[\"\\ud800\"]"])
    func rejectsInvalidJSON(input: String) {
        #expect(
            codecError { () throws(CodecError) in try codec.decode(Array(input.utf8)) }?.code == .invalidJSON,
            "\(input)")
    }

    @Test func rejectsInvalidUTF8() {
        #expect(
            codecError { () throws(CodecError) in try codec.decode([0x22, 0xC3, 0x28, 0x22]) }?.code == .invalidJSON)
    }

    @Test func methodCallsAndEnvelopes() throws {
        let call = MethodCall("foo", arguments: ["a": 1])
        #expect(text(try method.encodeMethodCall(call)) == #"{"method":"foo","args":{"a":1}}"#)
        #expect(try method.decodeMethodCall(Array(#"{"args":{"a":1},"method":"foo"}"#.utf8)) == call)
        #expect(try method.decodeMethodCall(Array(#"{"method":"foo"}"#.utf8)) == MethodCall("foo"))
        #expect(text(try method.encodeSuccessEnvelope(.null)) == "[null]")
        #expect(text(try method.encodeErrorEnvelope(MethodError(code: "E"))) == #"["E",null,null]"#)
        let withStack = MethodError(code: "E", message: "m", details: ["k": 1], stacktrace: "s")
        #expect(text(try method.encodeErrorEnvelope(withStack)) == #"["E","m",{"k":1},"s"]"#)
        #expect(try method.decodeEnvelope(Array(#"["E","m",{"k":1},"s"]"#.utf8)) == .error(withStack))
        #expect(try method.decodeEnvelope(Array("[7]".utf8)) == .success(7))
    }

    @Test(arguments: ["[]", "[1,2]", "{}", "[1,2,3,4,5]", "[1,null,null]", "[\"E\",1,null]", "[\"E\",null,null,1]", ""])
    func rejectsBadEnvelopes(input: String) {
        #expect(
            codecError { () throws(CodecError) in try method.decodeEnvelope(Array(input.utf8)) }?.code
                == .invalidEnvelope, "\(input)")
    }

    @Test(arguments: ["[]", "{\"args\":1}", "{\"method\":1}", ""])
    func rejectsBadMethodCalls(input: String) {
        #expect(
            codecError { () throws(CodecError) in try method.decodeMethodCall(Array(input.utf8)) }?.code
                == .invalidMethodCall, "\(input)")
    }

    @Test func stringAndBinaryCodecs() throws {
        #expect(try StringCodec().encode("é") == [0xC3, 0xA9])
        #expect(try StringCodec().decode([0xC3, 0xA9]) == "é")
        let bad = codecError { () throws(CodecError) in try StringCodec().decode([0x61, 0x62, 0xFF]) }
        #expect(bad?.code == .invalidUTF8)
        #expect(bad?.offset == 2)
        #expect(try BinaryCodec().decode(try BinaryCodec().encode([0, 255])) == [0, 255])
    }
}

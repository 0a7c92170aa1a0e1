import ChannelBridgeCodec
import Testing

@Suite struct TypedValueNotationTests {
    @Test func canonicalTextOfEveryKind() {
        let value: StandardValue = [
            .null, true, .int32(-5), .int64(9_223_372_036_854_775_807), .float64(1.5), .float64(.nan),
            .float64(-0.0), .float64(.infinity), "é", .uint8List([0, 255]), .int32List([1, -2]),
            .int64List([1, -2]), .float64List([0.5, -.infinity]), .float32List([0.1]),
            .map([.init(.null, [1])]), .custom(CustomValue(RawCustomValue(tag: 128, payload: [9]))),
        ]
        #expect(
            TypedValueNotation.canonicalText(value)
                == #"[null,true,{"int32":-5},{"int64":"9223372036854775807"},{"float64":1.5},{"float64":"NaN"},{"float64":"-0.0"},{"float64":"Infinity"},"é",{"uint8list":"00ff"},{"int32list":[1,-2]},{"int64list":["1","-2"]},{"float64list":[0.5,"-Infinity"]},{"float32list":[0.10000000149011612]},{"map":[[null,[{"int32":1}]]]},{"custom":128,"hex":"09"}]"#
        )
    }

    @Test func parseIsTheInverseOfCanonicalText() throws {
        let value: StandardValue = [.int64(-1), .float64(1e-300), .float32List([0.1, -0.0]), ["k": .uint8List([])]]
        #expect(try TypedValueNotation.parse(TypedValueNotation.canonicalText(value)) == value)
    }

    @Test func nanPayloadsKeepTheirBits() throws {
        let value: StandardValue = [
            .float64(Double(bitPattern: 0xFFF8_0000_0000_0001)),
            .float32List([Float(bitPattern: 0x7FC0_0001), .nan]),
        ]
        let text = TypedValueNotation.canonicalText(value)
        #expect(text == #"[{"float64":"NaN:fff8000000000001"},{"float32list":["NaN:7fc00001","NaN"]}]"#)
        #expect(try TypedValueNotation.parse(text) == value)
        #expect(
            codecError { () throws(CodecError) in try TypedValueNotation.parse(#"{"float64": "NaN:3ff0000000000000"}"#)
            } != nil)
    }

    @Test func lenientInput() throws {
        #expect(
            try TypedValueNotation.parse(#"{"key": "k", "value": 3}"#, lenient: true)
                == .map([.init("key", "k"), .init("value", .int32(3))]))
        #expect(try TypedValueNotation.parse("5000000000", lenient: true) == .int64(5_000_000_000))
        #expect(try TypedValueNotation.parse("2.5", lenient: true) == .float64(2.5))
        #expect(try TypedValueNotation.parse(#"{"int64": 7}"#) == .int64(7))
    }

    @Test(arguments: [
        "5", #"{"a": 1}"#, #"{"int32": 2147483648}"#, #"{"int32": "1"}"#, #"{"float32list": [0.1]}"#,
        #"{"uint8list": "abc"}"#, #"{"map": [[1]]}"#, #"{"custom": 5, "hex": ""}"#, "[", #"{"float64": "nan"}"#,
    ])
    func strictRejects(input: String) {
        #expect(
            codecError { () throws(CodecError) in try TypedValueNotation.parse(input) }?.code == .invalidNotation,
            "\(input)")
    }

    @Test func errorsNameThePath() {
        let error = codecError { () throws(CodecError) in
            try TypedValueNotation.parse(#"[1, {"int32list": [1, "x"]}]"#, lenient: true)
        }
        #expect(error?.message == "$[1].int32list[1]: expected an integer that fits in 32 bits")
    }
}

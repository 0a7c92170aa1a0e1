import ChannelBridgeCodec
import ChannelBridgeTestSupport
import Testing

/// Typed value notation's laws (typed-value-notation.md): canonical text reads back to the same
/// value, bit for bit; it is a fixed point; and TVN holds exactly the values the Standard codec
/// accepts, down to the 1,000-level nesting limit (§6).
@Suite struct TVNLawTests {
    let codec = StandardMessageCodec()

    @Test func canonicalTextReadsBackAndIsAFixedPoint() throws {
        var generator = LawGenerator(seed: 0x7E57_0001)
        generator.longerFormChance = 0.005
        for _ in 0..<1_500 {
            let value = generator.value(maxDepth: 5, custom: true)
            let text = TypedValueNotation.canonicalText(value)
            let back = try TypedValueNotation.parse(text)
            #expect(back == value, "\(text)")
            #expect(TypedValueNotation.canonicalText(back) == text)
            // Lenient input reads canonical text the same way.
            #expect(try TypedValueNotation.parse(text, lenient: true) == value)
        }
    }

    /// The store's writer, which writes straight from the value, gives the canonical text's bytes.
    @Test func theDirectWriterGivesTheCanonicalText() {
        var generator = LawGenerator(seed: 0x7E57_0003)
        for _ in 0..<1_500 {
            let value = generator.value(maxDepth: 5, custom: true)
            #expect(TVNWriter.canonicalUTF8(value) == Array(TypedValueNotation.canonicalText(value).utf8))
        }
    }

    /// Standard bytes → decode → canonical TVN → parse → encode gives the same bytes, for chains of
    /// lists and maps at every depth up to the codec's limit.
    @Test func standardToTVNToStandardUpToTheNestingLimit() throws {
        var generator = LawGenerator(seed: 0x7E57_0002)
        var depths = Array(0...40) + [332, 333, 334, 335, 500, 998, 999, 1_000]
        for _ in 0..<20 { depths.append(generator.int(41...1_000)) }
        for depth in depths {
            let bytes = try codec.encode(generator.chain(depth: depth))
            let text = TypedValueNotation.canonicalText(try codec.decode(bytes))
            #expect(try codec.encode(try TypedValueNotation.parse(text)) == bytes, "depth \(depth)")
        }
    }

    /// The deepest TVN a value at the limit has: 1,000 maps around a typed list, 3,002 JSON levels.
    @Test func deepestTextAtTheLimitReadsBack() throws {
        var value = StandardValue.float32List([0.5])
        for _ in 0..<1_000 { value = .map([.init(.int32(0), value)]) }
        let text = TypedValueNotation.canonicalText(value)
        #expect(text.hasPrefix(String(repeating: #"{"map":[[{"int32":0},"#, count: 1_000) + #"{"float32list":[0.5]}"#))
        #expect(try TypedValueNotation.parse(text) == value)
    }

    /// One level more is refused by both, with the same code: TVN never reads a value the codec
    /// would refuse, whether the JSON or the value count is what is too deep.
    @Test func oneLevelPastTheLimitIsRefusedByBoth() throws {
        var generator = LawGenerator(seed: 0x7E57_0003)
        for _ in 0..<8 {
            let value = generator.chain(depth: 1_001)
            let bytes = try codec.encode(value)
            #expect(codecError { () throws(CodecError) in try codec.decode(bytes) }?.code == .nestingTooDeep)
            let text = TypedValueNotation.canonicalText(value)
            let error = codecError { () throws(CodecError) in try TypedValueNotation.parse(text) }
            #expect(error?.code == .nestingTooDeep, "\(String(describing: error))")
        }
        let lists = String(repeating: "[", count: 1_001) + String(repeating: "]", count: 1_001)
        #expect(
            codecError { () throws(CodecError) in try TypedValueNotation.parse(lists) }?.message
                == "$" + String(repeating: "[0]", count: 1_000) + ": lists and maps nest deeper than 1000 levels")
        let lenientMaps = String(repeating: #"{"a":"#, count: 1_001) + "1" + String(repeating: "}", count: 1_001)
        #expect(
            codecError { () throws(CodecError) in try TypedValueNotation.parse(lenientMaps, lenient: true) }?.code
                == .nestingTooDeep)
        let tooDeepJSON = String(repeating: "[", count: TypedValueNotation.maxJSONDepth + 1)
        let error = codecError { () throws(CodecError) in try TypedValueNotation.parse(tooDeepJSON) }
        #expect(error?.code == .nestingTooDeep)
        #expect(error?.offset == TypedValueNotation.maxJSONDepth)
    }

    /// The issue-14 case: 334 maps `{null: …}` are 1,002 JSON levels.
    @Test func mapsNested334DeepReadBack() throws {
        let bytes = hex(String(repeating: "0d0100", count: 334) + "00")
        let text = TypedValueNotation.canonicalText(try codec.decode(bytes))
        #expect(try codec.encode(try TypedValueNotation.parse(text)) == bytes)
    }
}

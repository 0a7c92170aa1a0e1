@testable import ChannelBridgeStore
import ChannelBridgeCodec
import Testing

/// The store reads the scalars it writes in one exact form without the JSON parser; for every
/// text it must give what the parser gives, or nothing (and then the parser decides).
@Suite struct ScalarValueTextTests {
    static func parsed(_ text: String) -> StandardValue? {
        try? TypedValueNotation.value(from: JSONValue.parse(text))
    }

    static func fast(_ text: String) -> StandardValue? {
        Array(text.utf8).withUnsafeBytes { ScalarValueText.value(of: $0) }
    }

    @Test(arguments: [
        "true", "false", "null",
        #"{"int32":0}"#, #"{"int32":42}"#, #"{"int32":-7}"#, #"{"int32":2147483647}"#, #"{"int32":-2147483648}"#,
        #"{"int64":"0"}"#, #"{"int64":"5"}"#, #"{"int64":"-12"}"#,
        #"{"int64":"9223372036854775807"}"#, #"{"int64":"-9223372036854775808"}"#,
    ])
    func canonicalScalarsAreReadAsTheParserReadsThem(text: String) throws {
        let fast = try #require(Self.fast(text))
        #expect(fast == Self.parsed(text))
        #expect(TypedValueNotation.canonicalText(fast) == text)
    }

    /// Other spellings, values out of range and everything that is not one of those scalars are
    /// left to the parser.
    @Test(arguments: [
        "", "t", "True", " true", "nul", #"{"int32": 42}"#, #"{ "int32":42}"#, #"{"int32":042}"#, #"{"int32":-0}"#,
        #"{"int32":+1}"#, #"{"int32":}"#, #"{"int32":-}"#, #"{"int32":2147483648}"#, #"{"int32":-2147483649}"#,
        #"{"int32":1.0}"#, #"{"int32":1e3}"#, #"{"int32":"1"}"#, #"{"int64":5}"#, #"{"int64":"05"}"#, #"{"int64":""}"#,
        #"{"int64":"9223372036854775808"}"#, #"{"int64":"-9223372036854775809"}"#, #"{"int64":"99999999999999999999"}"#,
        #"{"float64":1.5}"#, #""text""#, #"{"int32":1}x"#, #"{"int32":1"#,
    ])
    func everythingElseIsLeftToTheParser(text: String) {
        #expect(Self.fast(text) == nil)
    }
}

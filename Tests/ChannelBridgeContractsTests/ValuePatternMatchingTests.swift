@testable import ChannelBridgeContracts
import ChannelBridgeCodec
import Testing

/// Reads `text` as a transcript value (matchers allowed) at the path `args`.
private func pattern(_ text: String) throws -> ValuePattern {
    try ValuePattern.parse(Field(try JSONValue.parse(text), path: "args"))
}

private func tvn(_ text: String) throws -> StandardValue {
    try TypedValueNotation.parse(text)
}

/// The difference `pattern` finds in `value`, as the report prints it, or nil.
private func diff(_ patternText: String, _ valueText: String) throws -> String? {
    try pattern(patternText).difference(from: tvn(valueText), at: "args")?.description
}

/// The matchers of Protocol/transcript.md §4, one semantic at a time.
@Suite struct ValuePatternMatchingTests {
    @Test func exactValuesCompareAsTVNVectorsDo() throws {
        #expect(try pattern(#"{"int32": 3}"#) == .exact(.int32(3)))
        #expect(try diff(#"{"int32": 3}"#, #"{"int32":3}"#) == nil)
        #expect(try diff(#"{"int32": 3}"#, #"{"int64":"3"}"#) == #"args: expected {"int32":3}, got {"int64":"3"}"#)
        #expect(
            try diff(#"{"float64": "-0.0"}"#, #"{"float64":0.0}"#)
                == #"args: expected {"float64":"-0.0"}, got {"float64":0.0}"#)
        #expect(try diff(#"{"float64": "NaN"}"#, #"{"float64":"NaN"}"#) == nil)
        // Map pairs compare in order.
        #expect(
            try diff(
                #"{"map": [["a", {"int32": 1}], ["b", {"int32": 2}]]}"#,
                #"{"map":[["b",{"int32":2}],["a",{"int32":1}]]}"#)
                == #"args.key("a"): expected "a", got "b""#)
    }

    @Test func anExactDifferenceNamesTheElementInside() throws {
        #expect(
            try diff(
                #"{"map": [["name", "Ada"], ["tags", ["x", "y"]]]}"#,
                #"{"map":[["name","Ada"],["tags",["x","z"]]]}"#)
                == #"args.value("tags")[1]: expected "y", got "z""#)
        #expect(try diff(#"["a"]"#, #"["a","b"]"#) == #"args: expected ["a"], got ["a","b"]"#)
    }

    @Test func anyAdmitsEveryValueOfItsTypeAndNoOther() throws {
        #expect(try diff(#"{"$any": "string"}"#, #""x""#) == nil)
        #expect(
            try diff(#"{"$any": "string"}"#, #"{"int32":1}"#) == #"args: expected {"$any":"string"}, got {"int32":1}"#)
        #expect(try diff(#"{"$any": "int"}"#, #"{"int64":"9"}"#) == nil)
        #expect(try diff(#"{"$any": "int"}"#, #"{"float64":1.0}"#) != nil)
        #expect(try diff(#"{"$any": "value"}"#, "null") == nil)
        #expect(try diff(#"{"$any": "uint8list"}"#, #"{"uint8list":"00"}"#) == nil)
        #expect(try diff(#"{"$any": "list"}"#, #"{"uint8list":"00"}"#) != nil)
        #expect(try diff(#"{"$any": "null"}"#, #""""#) != nil)
    }

    @Test func regexMatchesTheWholeStringOnly() throws {
        #expect(try diff(#"{"$regex": "a+b"}"#, #""aab""#) == nil)
        #expect(try diff(#"{"$regex": "a+b"}"#, #""aabc""#) == #"args: expected {"$regex":"a+b"}, got "aabc""#)
        #expect(try diff(#"{"$regex": "a+b"}"#, #"{"uint8list":"61"}"#) != nil)
        #expect(try diff(#"{"$regex": "[0-9]{3}"}"#, #""123""#) == nil)
    }

    @Test func anyOrderPairsEachPatternPairWithADistinctValuePair() throws {
        let details = #"{"$anyOrder": [["b", {"$any": "int32"}], ["a", "x"]]}"#
        #expect(try diff(details, #"{"map":[["a","x"],["b",{"int32":7}]]}"#) == nil)
        #expect(try diff(details, #"{"map":[["b",{"int32":7}],["a","x"]]}"#) == nil)
        #expect(
            try diff(details, #"{"map":[["b",{"int32":7}],["a","y"]]}"#)
                == #"args: expected {"$anyOrder":[["b",{"$any":"int32"}],["a","x"]]}, got {"map":[["b",{"int32":7}],["a","y"]]}"#
        )
        // The same count: a value with an extra pair does not match.
        #expect(try diff(details, #"{"map":[["a","x"],["b",{"int32":7}],["c",null]]}"#) != nil)
        // Two pattern pairs never take the same value pair.
        #expect(
            try diff(#"{"$anyOrder": [[{"$any":"string"}, null], ["a", null]]}"#, #"{"map":[["a",null],["b",null]]}"#)
                != nil)
        #expect(
            try diff(#"{"$anyOrder": [["a", null], [{"$any":"string"}, null]]}"#, #"{"map":[["b",null],["a",null]]}"#)
                == nil)
    }

    @Test func rangeComparesAsFloat64InclusiveAndRefusesNaN() throws {
        #expect(try diff(#"{"$range": [1, 5]}"#, #"{"int32":1}"#) == nil)
        #expect(try diff(#"{"$range": [1, 5]}"#, #"{"int64":"5"}"#) == nil)
        #expect(
            try diff(#"{"$range": [1, 5]}"#, #"{"float64":5.5}"#)
                == #"args: expected {"$range":[1,5]}, got {"float64":5.5}"#)
        #expect(try diff(#"{"$range": [null, 0]}"#, #"{"float64":"-Infinity"}"#) == nil)
        #expect(try diff(#"{"$range": [null, null]}"#, #"{"float64":"NaN"}"#) != nil)
        #expect(try diff(#"{"$range": [0, 10], "$type": "int32"}"#, #"{"int64":"3"}"#) != nil)
        #expect(try diff(#"{"$range": [0, 10], "$type": "int"}"#, #"{"int64":"3"}"#) == nil)
        #expect(try diff(#"{"$range": [0, 10]}"#, #""3""#) != nil)
    }

    @Test func matchersNestInListsAndMapsWithPathsToThem() throws {
        let text = #"{"map": [["id", {"$regex": "[a-f0-9]+"}], ["items", [{"$any": "string"}, {"$range": [0, 1]}]]]}"#
        #expect(try diff(text, #"{"map":[["id","beef"],["items",["x",{"float64":0.5}]]]}"#) == nil)
        #expect(
            try diff(text, #"{"map":[["id","beef"],["items",["x",{"float64":2.0}]]]}"#)
                == #"args.value("items")[1]: expected {"$range":[0,1]}, got {"float64":2.0}"#)
        #expect(
            try diff(text, #"{"map":[["id","BEEF"],["items",["x",{"float64":0.5}]]]}"#)
                == #"args.value("id"): expected {"$regex":"[a-f0-9]+"}, got "BEEF""#)
    }

    @Test func examplesAreWhatIsSentAndMustMatch() throws {
        #expect(try pattern(#"[{"$any": "string", "example": "e"}, {"int32": 1}]"#).example == .list(["e", .int32(1)]))
        #expect(try pattern(#"[{"$any": "string"}]"#).example == nil)
        #expect(
            throws: TranscriptError(
                location: "args",
                #"the example does not match: args.example: expected {"$any":"int32","example":"x"}, got "x""#)
        ) {
            try pattern(#"{"$any": "int32", "example": "x"}"#)
        }
    }

    @Test func malformedMatchersAreErrorsNamingTheField() throws {
        #expect(
            throws: TranscriptError(
                location: "args[0].$any",
                "unknown type 'text' (expected one of: null, bool, int32, int64, float64, string, uint8list, int32list, int64list, float32list, float64list, list, map, custom, int, value)"
            )
        ) {
            try pattern(#"[{"$any": "text"}]"#)
        }
        #expect(
            throws: TranscriptError(
                location: "args", "unknown member '$regexp' (expected: $any, $anyOrder, $range, $regex, $type, example)"
            )
        ) {
            try pattern(#"{"$regexp": "x"}"#)
        }
        #expect(throws: TranscriptError(location: "args.$range", "MIN 5.0 is above MAX 1.0")) {
            try pattern(#"{"$range": [5, 1]}"#)
        }
        #expect(throws: TranscriptError(location: "args", "$any cannot be combined with $regex")) {
            try pattern(#"{"$any": "string", "$regex": "x"}"#)
        }
        #expect(throws: TranscriptError.self) { try pattern(#"{"$regex": "(unclosed"}"#) }
    }
}

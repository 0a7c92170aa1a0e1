@testable import ChannelBridgeStore
import ChannelBridgeCodec
import Testing

/// Documents as the scanner reads them: how a watcher turns two looks at the file into changes,
/// how the change log is kept, and what a malformed log does.
@Suite struct StoredDocumentTests {
    /// A version-1 file with `values` and `log`, written here by hand and read by the scanner.
    static func document(_ values: KeyValuePairs<String, StandardValue>, log: ChangeLog?) throws -> StoredDocument {
        var text = #"{"version":1,"values":{"#
        text += values.map { JSONValue.string($0.key).text + ":" + TypedValueNotation.canonicalText($0.value) }
            .joined(separator: ",")
        text += "}"
        if let log { text += #","changeLog":"# + log.json.text }
        text += "}"
        return try DocumentScanner.document(from: Array(text.utf8), path: "/p")
    }

    func log(_ commits: [(UInt64, [String])]) -> ChangeLog {
        ChangeLog(seq: commits.last?.0 ?? 0, commits: commits.map { ChangeLog.Commit(seq: $0.0, keys: $0.1) })
    }

    func changes(_ new: StoredDocument, since old: StoredDocument) throws -> [StoreChange] {
        try new.changedKeys(since: old).map { StoreChange(key: $0, value: try new.value(forKey: $0, path: "/p")) }
    }

    @Test func writesMissedBetweenTwoLooksAreNamedByTheLogOncePerKey() throws {
        let old = try Self.document(["a": 1, "b": 2], log: log([(1, ["a"]), (2, ["b"])]))
        // Three writes since: a set to the same value twice, then a new key.
        let new = try Self.document(
            ["a": 1, "b": 2, "c": 3], log: log([(1, ["a"]), (2, ["b"]), (3, ["a"]), (4, ["a"]), (5, ["c"])]))
        #expect(try changes(new, since: old) == [StoreChange(key: "a", value: 1), StoreChange(key: "c", value: 3)])
    }

    @Test func theSameWriteSeenTwiceReportsNothing() throws {
        let seen = try Self.document(["a": 1], log: log([(1, ["a"])]))
        #expect(try changes(seen, since: seen) == [])
    }

    @Test func withoutALogValuesAreCompared() throws {
        let old = try Self.document(["a": 1, "b": 2, "gone": true], log: nil)
        let new = try Self.document(["a": 1, "b": 20, "new": "x"], log: nil)
        #expect(
            try changes(new, since: old) == [
                StoreChange(key: "b", value: 20), StoreChange(key: "new", value: "x"),
                StoreChange(key: "gone", value: nil),
            ])
    }

    @Test func theSameValueWrittenWithOtherSpacingIsNoChange() throws {
        let old = try DocumentScanner.document(
            from: Array(#"{"version":1,"values":{"m":{"int32":1},"l":[{"float64":1.5},"x"]}}"#.utf8), path: "/p")
        let new = try DocumentScanner.document(
            from: Array(
                "{ \"version\": 1, \"values\": { \"m\" : { \"int32\" : 1 }, \"l\": [ { \"float64\" : 1.5 } , \"x\" ] } }"
                    .utf8), path: "/p")
        #expect(try changes(new, since: old) == [])
    }

    @Test func aLogThatNoLongerReachesBackIsCompletedByComparingValues() throws {
        let old = try Self.document(["a": 1, "b": 2], log: log([(3, ["a"])]))
        // Writes 4...9 are no longer in the log; one of them removed b.
        let new = try Self.document(["a": 1, "c": 3], log: log([(10, ["c"])]))
        #expect(try changes(new, since: old) == [StoreChange(key: "c", value: 3), StoreChange(key: "b", value: nil)])
    }

    @Test func aLogCopiedUnchangedByAnotherWriterIsCompletedByComparingValues() throws {
        let old = try Self.document(["a": 1], log: log([(3, ["a"])]))
        let new = try Self.document(["a": 2], log: log([(3, ["a"])]))
        #expect(try changes(new, since: old) == [StoreChange(key: "a", value: 2)])
    }

    @Test func aLogThatStartedAgainCountsAsNew() throws {
        let old = try Self.document(["a": 1], log: log([(7, ["a"])]))
        let new = try Self.document(["a": 1], log: log([(1, ["a"])]))
        #expect(try changes(new, since: old) == [StoreChange(key: "a", value: 1)])
    }

    @Test func aMissingFileAfterAFileReportsEveryKeyRemoved() throws {
        let old = try Self.document(["a": 1, "b": 2], log: log([(2, ["b"])]))
        #expect(
            try changes(.empty, since: old) == [
                StoreChange(key: "a", value: nil), StoreChange(key: "b", value: nil),
            ])
    }

    @Test func theLogKeepsTheLatestWritesWithinItsLimits() {
        var log = ChangeLog(seq: 0, commits: [])
        for index in 1...40 { log.record(["k\(index)"]) }
        #expect(log.seq == 40)
        #expect(log.commits.map(\.seq) == Array(9...40))
        log.record((0..<5_000).map { "bulk\($0)" })
        #expect(log.seq == 41)
        #expect(log.commits.map(\.seq) == [41])
        log.record(["after"])
        #expect(log.commits.map(\.seq) == [42])  // 5,001 keys are over the limit: the bulk write goes
    }

    @Test func aMalformedLogIsIgnoredAndTheValuesStillRead() throws {
        let texts = [
            #"{"version":1,"values":{"a":true},"changeLog":{"seq":"1","commits":[]}}"#,
            #"{"version":1,"values":{"a":true},"changeLog":{"seq":2,"commits":[{"seq":3,"keys":["a"]}]}}"#,
            #"{"version":1,"values":{"a":true},"changeLog":{"seq":2,"commits":[{"seq":2,"keys":[1]}]}}"#,
            #"{"version":1,"values":{"a":true},"changeLog":[]}"#,
        ]
        for text in texts {
            let document = try DocumentScanner.document(from: Array(text.utf8), path: "/p")
            #expect(document.changeLog == nil, "\(text)")
            #expect(try document.allValues(path: "/p") == [PreferenceEntry(key: "a", value: true)])
        }
    }

    /// Offsets in a JSON error are the file's, not the value's, however the scanner splits it.
    @Test func aJSONErrorInsideAValueNamesItsOffsetInTheFile() throws {
        let text = #"{"version":1,"values":{"a":true,"b":[1,2}}}"#
        let error = try #require(throws: StoreError.self) {
            try DocumentScanner.document(from: Array(text.utf8), path: "/p")
        }
        #expect(error.code == .corruptFile)
        // The only '2' is in b's value; the fault is the '}' right after it.
        let fault = try #require(Array(text.utf8).firstIndex(of: UInt8(ascii: "2"))) + 1
        #expect(error.message.hasPrefix("preferences file '/p' is not valid JSON: "))
        #expect(error.message.hasSuffix("(at byte \(fault))"), "\(error.message)")
    }

    /// The scanner reads the file with the codec's JSON parser: a file that is not JSON is named
    /// in the words, and at the offset, that parsing the whole file names it.
    @Test(arguments: [
        (#"{"version":1x,"values":{}}"#, "expected ',' or '}' (at byte 12)"),
        (#"{"version":1,"values":{"a":"b}}"#, "unterminated string (at byte 27)"),
        (#"{"version":1,"values":{"a":[1,2}}"#, "expected ',' or ']' (at byte 31)"),
        (#"{"version":1,"values":{"a":true"#, "expected ',' or '}' (at byte 31)"),
        (#"{"version":1,"val"#, "unterminated string (at byte 13)"),
        (#"{"version":1,"values":{"a" true}}"#, "expected ':' (at byte 27)"),
        (#"{"version":1,"values":{"a":tru}}"#, "invalid literal (at byte 27)"),
        (#"{"version":1,"values":{}} x"#, "unexpected text after the JSON value (at byte 26)"),
        (#"{"version":1,"values":{"\u12":1}}"#, #"invalid \u escape (at byte 28)"#),
        ("  [1,", "unexpected end of JSON (at byte 5)"),
    ])
    func aFileThatIsNotJSONIsNamedAsTheParserNamesIt(text: String, fault: String) throws {
        let error = try #require(throws: StoreError.self) {
            try DocumentScanner.document(from: Array(text.utf8), path: "/p")
        }
        #expect(error.code == .corruptFile)
        #expect(error.message == "preferences file '/p' is not valid JSON: \(fault)")
        let whole = try #require(throws: CodecError.self) { try JSONValue.parse(text) }
        #expect(whole.description == fault)
    }

    /// A string value's text is read straight from its bytes unless it holds an escape, wherever
    /// the backslash lies (each of the eight places a word has, and the last bytes, read as one
    /// overlapping word): the value is what the JSON parser makes of the text either way.
    @Test func aStringValueIsItsTextBetweenTheQuotesUnlessItHoldsAnEscape() throws {
        let plain = [
            "", "a", "ping", "12345678", "123456789012345", "1234567890123456", "caf\u{E9} au lait",
            String(repeating: "x", count: 40),
        ]
        for string in plain {
            let text = Array(JSONValue.string(string).text.utf8)
            #expect(text.withUnsafeBytes(StoredDocument.unescapedString) == string)
            #expect(try StoredDocument.decode(text[...], key: "k", path: "/p") == .string(string))
        }
        for length in 1...24 {
            for place in 0..<length {
                var characters = Array(repeating: UInt8(ascii: "x"), count: length)
                characters[place] = UInt8(ascii: "\\")
                let string = String(decoding: characters, as: UTF8.self)
                let text = Array(JSONValue.string(string).text.utf8)
                let inner = text.withUnsafeBytes { UnsafeRawBufferPointer(rebasing: $0[1..<$0.count - 1]) }
                #expect(StoredDocument.containsBackslash(inner), "a backslash at \(place) of \(length)")
                #expect(text.withUnsafeBytes(StoredDocument.unescapedString) == nil)
                #expect(try StoredDocument.decode(text[...], key: "k", path: "/p") == .string(string))
            }
            let none = Array(repeating: UInt8(ascii: "x"), count: length)
            #expect(!none.withUnsafeBytes(StoredDocument.containsBackslash), "no backslash in \(length)")
        }
        // Not a string: decoded as typed value notation, as before.
        #expect(try StoredDocument.decode(Array(#"{"int32": 12}"#.utf8)[...], key: "k", path: "/p") == .int32(12))
        #expect(Array(#""x"#.utf8).withUnsafeBytes(StoredDocument.unescapedString) == nil)
    }
}

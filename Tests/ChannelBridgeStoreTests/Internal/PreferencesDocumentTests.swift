@testable import ChannelBridgeStore
import ChannelBridgeCodec
import Testing

/// How a watcher turns two looks at the file into changes, and how the change log is kept.
@Suite struct PreferencesDocumentTests {
    func document(_ values: KeyValuePairs<String, StandardValue>, log: ChangeLog?) -> PreferencesDocument {
        var document = PreferencesDocument()
        for (key, value) in values { document.values[key] = value }
        document.changeLog = log
        return document
    }

    func log(_ commits: [(UInt64, [String])]) -> ChangeLog {
        ChangeLog(seq: commits.last?.0 ?? 0, commits: commits.map { ChangeLog.Commit(seq: $0.0, keys: $0.1) })
    }

    @Test func writesMissedBetweenTwoLooksAreNamedByTheLogOncePerKey() {
        let old = document(["a": 1, "b": 2], log: log([(1, ["a"]), (2, ["b"])]))
        // Three writes since: a set to the same value twice, then a new key.
        let new = document(["a": 1, "b": 2, "c": 3], log: log([(1, ["a"]), (2, ["b"]), (3, ["a"]), (4, ["a"]), (5, ["c"])]))
        #expect(new.changes(since: old) == [StoreChange(key: "a", value: 1), StoreChange(key: "c", value: 3)])
    }

    @Test func theSameWriteSeenTwiceReportsNothing() {
        let seen = document(["a": 1], log: log([(1, ["a"])]))
        #expect(seen.changes(since: seen) == [])
    }

    @Test func withoutALogValuesAreCompared() {
        let old = document(["a": 1, "b": 2, "gone": true], log: nil)
        let new = document(["a": 1, "b": 20, "new": "x"], log: nil)
        #expect(new.changes(since: old) == [
            StoreChange(key: "b", value: 20), StoreChange(key: "new", value: "x"), StoreChange(key: "gone", value: nil),
        ])
    }

    @Test func aLogThatNoLongerReachesBackIsCompletedByComparingValues() {
        let old = document(["a": 1, "b": 2], log: log([(3, ["a"])]))
        // Writes 4...9 are no longer in the log; one of them removed b.
        let new = document(["a": 1, "c": 3], log: log([(10, ["c"])]))
        #expect(new.changes(since: old) == [StoreChange(key: "c", value: 3), StoreChange(key: "b", value: nil)])
    }

    @Test func aLogThatStartedAgainCountsAsNew() {
        let old = document(["a": 1], log: log([(7, ["a"])]))
        let new = document(["a": 1], log: log([(1, ["a"])]))
        #expect(new.changes(since: old) == [StoreChange(key: "a", value: 1)])
    }

    @Test func aMissingFileAfterAFileReportsEveryKeyRemoved() {
        let old = document(["a": 1, "b": 2], log: log([(2, ["b"])]))
        #expect(PreferencesDocument.empty.changes(since: old) == [
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
            let document = try PreferencesDocument(decoding: Array(text.utf8), path: "/p")
            #expect(document.changeLog == nil, "\(text)")
            #expect(document.values.entries == [PreferenceEntry(key: "a", value: true)])
        }
    }

    @Test func encodingThenDecodingGivesTheSameDocument() throws {
        var document = PreferencesDocument()
        for (key, value) in sampleValues { document.values[key] = value }
        document.recordWrite(of: ["a", "b"])
        document.otherMembers = [.init("extra", .array([.null]))]
        let decoded = try PreferencesDocument(decoding: document.encoded(), path: "/p")
        #expect(decoded == document)
    }
}

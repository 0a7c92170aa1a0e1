@testable import ChannelBridgeStore
import ChannelBridgeCodec
import ChannelBridgeTestSupport
import Testing

/// A group commit's edit: what it writes, byte for byte, and what the cached document looks like
/// after taking the result in.
@Suite struct DocumentEditTests {
    static func text(_ value: StandardValue) -> [UInt8] { Array(TypedValueNotation.canonicalText(value).utf8) }

    /// Applies `changes` to `base` as one commit; returns the new file read back by the scanner and
    /// the cached document updated in place, which must agree.
    static func commit(
        _ base: StoredDocument, _ changes: (inout DocumentEdit) -> Void
    ) throws
        -> (file: StoredDocument, cached: StoredDocument, bytes: [UInt8])
    {
        var edit = DocumentEdit(base: base, path: "/p")
        changes(&edit)
        var buffers = DocumentEdit.Buffers()
        let result = try edit.result(into: &buffers)
        let bytes = buffers.bytes
        var cached = base
        cached.apply(result, buffers: &buffers)
        return (try DocumentScanner.document(from: bytes, path: "/p"), cached, bytes)
    }

    @Test func overwritesKeepTheirPlaceRemovalsGoAndAKeyStoredAgainGoesLast() throws {
        let base = try StoredDocumentTests.document(["a": 1, "b": 2, "c": 3], log: nil)
        let (file, cached, _) = try Self.commit(base) { edit in
            edit.set("b", text: Self.text(20))
            edit.set("a", text: nil)
            edit.set("d", text: Self.text("new"))
            edit.set("a", text: Self.text(true))
            let wroteMissing = edit.set("missing", text: nil)
            #expect(wroteMissing == false)
        }
        let expected = [
            PreferenceEntry(key: "b", value: 20), PreferenceEntry(key: "c", value: 3),
            PreferenceEntry(key: "d", value: "new"), PreferenceEntry(key: "a", value: true),
        ]
        #expect(try file.allValues(path: "/p") == expected)
        #expect(try cached.allValues(path: "/p") == expected)
        #expect(file.changeLog == ChangeLog(seq: 1, commits: [.init(seq: 1, keys: ["b", "a", "d"])]))
        #expect(cached.changeLog == file.changeLog)
        for key in ["a", "b", "c", "d"] {
            #expect(
                cached.valueText(forKey: key).map(Array.init) == file.valueText(forKey: key).map(Array.init), "\(key)")
        }
    }

    @Test func unchangedMembersAreCopiedByteForByteAndOtherMembersKept() throws {
        // Another writer's spacing and a member this version does not know.
        let original =
            "{\"values\" : {\"kept\" :  [ true , \"2\" ],\n\"changed\": \"old\"}, \"version\": 1, \"future\": {\"x\": [null]}}"
        let base = try DocumentScanner.document(from: Array(original.utf8), path: "/p")
        let (file, _, bytes) = try Self.commit(base) { edit in edit.set("changed", text: Self.text("new")) }
        let written = String(decoding: bytes, as: UTF8.self)
        #expect(
            written == """
                {
                  "version": 1,
                  "values": {
                    "kept" :  [ true , "2" ],
                    "changed": "new"
                  },
                  "changeLog": {"seq":1,"commits":[{"seq":1,"keys":["changed"]}]},
                  "future": {"x": [null]}
                }

                """)
        #expect(try file.value(forKey: "kept", path: "/p") == [true, "2"] as StandardValue)
        #expect(file.otherMembers.map(\.key) == ["future"])
    }

    /// Unchanged members are copied in runs; a run ends where the base's spacing between
    /// two members is not ours (shorter, longer, or as long and different), so each member still
    /// lands in our layout.
    @Test func runsOfUnchangedMembersKeepOurLayoutWhereverTheBaseHadOther() throws {
        let original =
            "{\"version\": 1, \"values\": {\n    \"a\": \"1\",\n    \"b\": \"2\",\"c\": \"3\",\n    \"d\": \"4\" ,\n    "
            + "\"e\": \"5\",\n    \"f\": \"6\",\n     \"g\": \"7\",\n\t   \"h\": \"8\"}}"
        let base = try DocumentScanner.document(from: Array(original.utf8), path: "/p")
        let (file, cached, bytes) = try Self.commit(base) { edit in edit.set("f", text: Self.text(.int32(60))) }
        #expect(
            String(decoding: bytes, as: UTF8.self) == """
                {
                  "version": 1,
                  "values": {
                    "a": "1",
                    "b": "2",
                    "c": "3",
                    "d": "4",
                    "e": "5",
                    "f": {"int32":60},
                    "g": "7",
                    "h": "8"
                  },
                  "changeLog": {"seq":1,"commits":[{"seq":1,"keys":["f"]}]}
                }

                """)
        try Self.expectAgree(cached, file)
    }

    /// Tombstones among unchanged members (left by removals) are carried through a run.
    @Test func runsCarryTombstonesAndTheirMembersOffsets() throws {
        let base = try StoredDocumentTests.document(
            ["k0": "0", "k1": "1", "k2": "2", "k3": "3", "k4": "4", "k5": "5", "k6": "6"],
            log: nil)
        let (_, document, _) = try Self.commit(base) { edit in
            edit.set("k1", text: nil)
            edit.set("k2", text: nil)
            edit.set("k5", text: nil)
        }
        #expect(document.tombstones == 3)
        let (file, cached, bytes) = try Self.commit(document) { edit in edit.set("k6", text: Self.text("six")) }
        #expect(cached.tombstones == 3 && cached.entries.count == 7)
        #expect(
            String(decoding: bytes, as: UTF8.self).hasPrefix(
                """
                {
                  "version": 1,
                  "values": {
                    "k0":"0",
                    "k3":"3",
                    "k4":"4",
                    "k6":"six"
                  },
                """))
        try Self.expectAgree(cached, file)
    }

    /// Random commits over a document of mixed spacing: after each, the cached document (updated in
    /// place, offsets shifted run by run) agrees with the file it wrote, read back.
    @Test(arguments: 0..<8)
    func theCachedDocumentAgreesWithTheFileAfterRandomCommits(seed: Int) throws {
        var random = SeededGenerator(seed: UInt64(seed) &+ 0x5eed)
        // Ours three times in eight; the others include two of our separator's length.
        let gaps = [",\n    ", ",", " , ", ",\n    ", ",\n    ", ",\n\t", ",\n\t   ", " ,\n   "]
        var text = "{\"version\":1,\"values\":{"
        for index in 0..<60 {
            if index > 0 { text += gaps[Int.random(in: 0..<gaps.count, using: &random)] }
            text += "\"k\(index)\": \"\(index)\""
        }
        text += "}}"
        var document = try DocumentScanner.document(from: Array(text.utf8), path: "/p")
        var model = Dictionary(uniqueKeysWithValues: (0..<60).map { ("k\($0)", StandardValue.string("\($0)")) })
        for round in 0..<12 {
            let (file, cached, _) = try Self.commit(document) { edit in
                for _ in 0..<Int.random(in: 1...6, using: &random) {
                    let key = "k\(Int.random(in: 0..<80, using: &random))"
                    if Bool.random(using: &random) {
                        edit.set(key, text: nil)
                        model[key] = nil
                    } else {
                        let value = StandardValue.int32(
                            Int32(round * 1_000 + Int.random(in: 0..<1_000, using: &random)))
                        edit.set(key, text: Self.text(value))
                        model[key] = value
                    }
                }
            }
            try Self.expectAgree(cached, file)
            let stored = try file.allValues(path: "/p")
            #expect(
                Dictionary(uniqueKeysWithValues: stored.map { ($0.key, $0.value) }) == model,
                "seed \(seed) round \(round)")
            document = cached
        }
    }

    /// The cached document and the file read back hold the same keys in the same order, each with
    /// the same value text.
    static func expectAgree(
        _ cached: StoredDocument, _ file: StoredDocument,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        #expect(cached.orderedKeys() == file.orderedKeys(), sourceLocation: sourceLocation)
        for key in file.orderedKeys() {
            #expect(
                cached.valueText(forKey: key).map(Array.init) == file.valueText(forKey: key).map(Array.init),
                "\(key)", sourceLocation: sourceLocation)
        }
    }

    @Test func removeAllNamesEveryKeyInOrderAndLeavesAnEmptyValuesObject() throws {
        let base = try StoredDocumentTests.document(["x": 1, "y": 2], log: nil)
        var keys: [String] = []
        let (file, cached, bytes) = try Self.commit(base) { edit in
            edit.set("z", text: Self.text(3))
            let removedAny = edit.removeAll()
            #expect(removedAny)
            keys = edit.writtenKeys
        }
        #expect(keys == ["z", "x", "y"])
        #expect(file.count == 0 && cached.count == 0)
        #expect(String(decoding: bytes, as: UTF8.self).hasPrefix("{\n  \"version\": 1,\n  \"values\": {},\n"))
    }

    @Test func editsSeeTheirOwnEarlierWrites() throws {
        let base = try StoredDocumentTests.document(["n": .int64(1)], log: nil)
        _ = try Self.commit(base) { edit in
            #expect(try! edit.value(forKey: "n") == .int64(1))
            edit.set("n", text: Self.text(.int64(2)))
            #expect(try! edit.value(forKey: "n") == .int64(2))
            edit.set("n", text: nil)
            #expect(try! edit.value(forKey: "n") == nil)
            edit.set("n", text: Self.text(.int64(3)))
            #expect(try! edit.value(forKey: "n") == .int64(3))
        }
    }

    /// Many removals leave tombstones; once they outnumber the keys they are dropped, and every
    /// lookup still finds its own value.
    @Test func tombstonesAreCompactedWithoutLosingAKey() throws {
        var document = StoredDocument.empty
        var buffers = DocumentEdit.Buffers()
        var edit = DocumentEdit(base: document, path: "/p")
        for index in 0..<3_000 { edit.set("k\(index)", text: Self.text(.int32(Int32(index)))) }
        document.apply(try edit.result(into: &buffers), buffers: &buffers)
        var removed = 0
        for round in 0..<3 {
            var edit = DocumentEdit(base: document, path: "/p")
            for index in stride(from: round, to: 3_000, by: 4) {
                edit.set("k\(index)", text: nil)
                removed += 1
            }
            let result = try edit.result(into: &buffers)
            let file = try DocumentScanner.document(from: buffers.bytes, path: "/p")
            edit = DocumentEdit(base: .empty, path: "/p")  // the edit's copy of the document goes first
            document.apply(result, buffers: &buffers)
            #expect(file.count == 3_000 - removed)
        }
        #expect(document.tombstones == 0 && document.entries.count == 750, "compaction ran")
        #expect(document.count == 750)
        for index in 0..<3_000 {
            let expected: StandardValue? = index % 4 == 3 ? .int32(Int32(index)) : nil
            #expect(try document.value(forKey: "k\(index)", path: "/p") == expected, "k\(index)")
        }
    }

    @Test func theChangeLogIsWrittenAsItsCompactJSON() {
        // Written straight into the file's bytes; must equal the JSONValue writer's text.
        let keys = ["plain", "quote\"back\\slash", "lines\n\r\t\u{08}\u{0C}", "control\u{01}\u{1F}", "ünï ☃", ""]
        var log = ChangeLog(seq: 0, commits: [])
        #expect(written(log) == Array(log.json.text.utf8))
        for key in keys { log.record([key, key + "2"]) }
        log.record([])
        #expect(written(log) == Array(log.json.text.utf8))
        #expect(
            String(
                decoding: written(ChangeLog(seq: 9_007_199_254_740_992, commits: [.init(seq: 3, keys: ["a"])])),
                as: UTF8.self)
                == #"{"seq":9007199254740992,"commits":[{"seq":3,"keys":["a"]}]}"#)
    }

    private func written(_ log: ChangeLog) -> [UInt8] {
        var out: [UInt8] = []
        log.write(into: &out)
        return out
    }
}

@testable import ChannelBridgeStore
import ChannelBridgeCodec
import Testing

/// A member found by its key's bytes (`StoredDocument.valueText(forKeyUTF8:)`) is always the
/// member `index` finds for that key, and every key the file spells as its bytes is found so:
/// after a read of the file, after writes that add and remove keys, after a compaction, for keys
/// that share a slot, and never for a key that only begins another's text or ends where an escape
/// would.
@Suite struct KeyBytesIndexTests {
    /// Every key of `keys` found by its bytes gets `index`'s answer. Of the keys the file spells
    /// as their bytes (`plain`), at most `displaced` are not found by them: the index keeps no key
    /// whose probe run another key filled (`KeyBytesIndex.probeLimit`), a few in a thousand here.
    static func check(
        _ document: StoredDocument, _ keys: [String], plain: (String) -> Bool, displaced: Int = 0, _ note: String
    ) {
        var notFound: [String] = []
        for key in keys {
            let byString = document.valueText(forKey: key).map(Array.init)
            let byBytes = Array(key.utf8).withUnsafeBytes { document.valueText(forKeyUTF8: $0) }.map(Array.init)
            if let byBytes {
                #expect(byBytes == byString, "\(note): \(key.debugDescription)")
            } else if byString != nil, plain(key) {
                notFound.append(key)
            }
        }
        #expect(notFound.count <= displaced, "\(note): in the file as their bytes, not found by them: \(notFound)")
    }

    @Test func aFileReadFindsEveryPlainKeyAndOnlyItsOwnMember() throws {
        let keys = [
            "k1", "k12", "k123", "a", "ab", "caf\u{E9}", "with \"quote\"", "back\\slash", "a\\", "tab\t",
            String(repeating: "long", count: 40),
        ]
        var text = #"{"version":1,"values":{"#
        text += keys.enumerated().map { JSONValue.string($1).text + ":" + #"{"int32":\#($0)}"# }.joined(separator: ",")
        // A member another writer spelled with an escape for a plain character.
        text += #","caf\u00e9s":{"int32":99}}}"#
        let document = try DocumentScanner.document(from: Array(text.utf8), path: "/p")
        let plain: (String) -> Bool = {
            !$0.contains("\"") && !$0.contains("\\") && !$0.contains("\t") && $0 != "cafés"
        }
        Self.check(
            document, keys + ["cafés", "k1234", "k", "", "absent", "a\"b", "with \"quote"], plain: plain, "read")
        // The escaped spelling is found through `index` only.
        #expect(Array("cafés".utf8).withUnsafeBytes { document.valueText(forKeyUTF8: $0) } == nil)
        #expect(document.valueText(forKey: "cafés") != nil)
    }

    @Test func writesAndACompactionKeepEveryKeyFoundByItsBytes() throws {
        var document = StoredDocument.empty
        var buffers = DocumentEdit.Buffers()
        var all: [String] = []
        func commit(_ changes: (inout DocumentEdit) -> Void) throws {
            var edit = DocumentEdit(base: document, path: "/p")
            changes(&edit)
            let result = try edit.result(into: &buffers)
            edit = DocumentEdit(base: .empty, path: "/p")  // the edit's copy of the document goes first
            document.apply(result, buffers: &buffers)
        }
        // Grows past the slots' first sizes one write at a time, then in one large write.
        for index in 0..<200 {
            try commit { _ = $0.set("k\(index)", text: Array(#"{"int32":\#(index)}"#.utf8)) }
            all.append("k\(index)")
        }
        Self.check(document, all, plain: { _ in true }, displaced: 2, "one at a time")
        try commit { edit in for index in 200..<3_000 { _ = edit.set("k\(index)", text: Array(#""v\#(index)""#.utf8)) }
        }
        all += (200..<3_000).map { "k\($0)" }
        Self.check(document, all, plain: { _ in true }, displaced: 10, "in one write")
        // Removals, a key set again (it goes last), then enough removals for a compaction.
        try commit { edit in
            for index in stride(from: 0, to: 3_000, by: 3) { _ = edit.set("k\(index)", text: nil) }
            _ = edit.set("k0", text: Array(#""back""#.utf8))
        }
        Self.check(document, all, plain: { _ in true }, displaced: 10, "after removals")
        #expect(
            Array("k0".utf8).withUnsafeBytes { document.valueText(forKeyUTF8: $0) }.map(Array.init)
                == Array(#""back""#.utf8))
        #expect(Array("k3".utf8).withUnsafeBytes { document.valueText(forKeyUTF8: $0) } == nil)
        try commit { edit in for index in 0..<2_900 where index % 3 != 0 { _ = edit.set("k\(index)", text: nil) } }
        #expect(document.tombstones == 0, "compaction ran")
        Self.check(document, all, plain: { _ in true }, displaced: 2, "after a compaction")
        #expect(document.count == 1 + 66 + 1, "k0, k2900 to k2999 less every third, and \(document.count)")
    }

    /// Keys that share their first slot (a full probe run and more): each is found by its bytes or
    /// through `index`, never as another.
    @Test func keysSharingASlotNeverAnswerForEachOther() throws {
        var index = KeyBytesIndex(sizedFor: 4)
        var byFirstSlot: [Int: [String]] = [:]
        var candidate = 0
        // Keys whose hash's top bits are the same slot of a 64-slot index.
        while byFirstSlot.values.allSatisfy({ $0.count < KeyBytesIndex.probeLimit + 2 }) {
            let key = "c\(candidate)"
            let slot = Int(Array(key.utf8).withUnsafeBytes { KeyBytes.hash($0) } >> 58)
            byFirstSlot[slot, default: []].append(key)
            candidate += 1
        }
        let sharing = byFirstSlot.values.first { $0.count >= KeyBytesIndex.probeLimit + 2 }!
        for (position, key) in sharing.enumerated() {
            Array(key.utf8).withUnsafeBytes { index.insert($0, at: position, isLive: { _ in true }) }
        }
        for (position, key) in sharing.enumerated() {
            let found = Array(key.utf8).withUnsafeBytes { utf8 in index.position(of: utf8) { sharing[$0] == key } }
            #expect(found == nil || found == position, "\(key)")
        }
        var text = #"{"version":1,"values":{"#
        text += sharing.enumerated().map { #""\#($1)":{"int32":\#($0)}"# }.joined(separator: ",") + "}}"
        let document = try DocumentScanner.document(from: Array(text.utf8), path: "/p")
        for key in sharing {
            let byBytes = Array(key.utf8).withUnsafeBytes { document.valueText(forKeyUTF8: $0) }.map(Array.init)
            #expect(byBytes == nil || byBytes == document.valueText(forKey: key).map(Array.init), "\(key)")
        }
    }
}

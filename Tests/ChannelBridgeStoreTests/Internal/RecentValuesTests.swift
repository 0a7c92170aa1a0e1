@testable import ChannelBridgeStore
import ChannelBridgeCodec
import ChannelBridgePlatform
import ChannelBridgeTestSupport
import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// A value a read left at hand (`GroupEngine.recentValue(forKeyUTF8:epoch:)`) is given back only while it is still
/// the key's value: never after a write of this process or of another one, never for another key,
/// and only within the stated bounds.
@Suite struct RecentValuesTests {
    /// A store on a fresh data directory whose engine has a watch of its own (the process's
    /// shared one moves with every other test's writes, which would send reads through a `stat`).
    func withGroup(_ body: (_ dataDirectory: String, AppGroupPreferences) async throws -> Void) async throws {
        try await TestDirectory.withPath { dataDirectory in
            let files = GroupFiles(directory: dataDirectory + "/app-groups/group.test")
            let engine = GroupEngine(files: files, threadName: "test", freshness: FreshnessWatch())
            try await body(dataDirectory, AppGroupPreferences(appGroup: "group.test", engine: engine))
        }
    }

    /// What the engine has at hand for `key`'s bytes: the value (`.some(nil)` for an absent key),
    /// or `nil` for nothing.
    func recent(_ prefs: AppGroupPreferences, _ key: String) -> StandardValue?? {
        guard let epoch = prefs.engine.freshness.epoch() else { return nil }
        return Array(key.utf8).withUnsafeBytes { prefs.engine.recentValue(forKeyUTF8: $0, epoch: epoch) }
    }

    /// `cachedValue(forKey:)`, which must answer from the cache here.
    func cached(
        _ prefs: AppGroupPreferences, _ key: String, sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> StandardValue? {
        guard case .known(let value) = try prefs.cachedValue(forKey: key) else {
            Issue.record("the read of '\(key)' did not answer from the cache", sourceLocation: sourceLocation)
            return nil
        }
        return value
    }

    /// `cachedValue(forKeyUTF8:)`, the plugin's read: the value, or `nil` for `.unknown`.
    func byBytes(_ prefs: AppGroupPreferences, _ key: String) throws -> StandardValue?? {
        guard case .known(let value) = Array(key.utf8).withUnsafeBytes({ prefs.cachedValue(forKeyUTF8: $0) })
        else { return nil }
        return .some(value)
    }

    func rememberedCount(_ prefs: AppGroupPreferences) -> Int {
        prefs.engine.cache.withLock { $0.recent.count }
    }

    @Test func aReadLeavesTheValueAtHandUntilThisProcessWritesAgain() async throws {
        try await withGroup { _, prefs in
            try await prefs.set(.int32(42), forKey: "warm")
            #expect(recent(prefs, "warm") == nil, "nothing was read yet")
            #expect(try cached(prefs, "warm") == .int32(42))
            #expect(recent(prefs, "warm") == .some(.int32(42)))
            #expect(recent(prefs, "warm") == .some(.int32(42)), "a second time")
            #expect(recent(prefs, "war") == nil)
            #expect(recent(prefs, "warmer") == nil)
            // An absent key is remembered as absent.
            #expect(try cached(prefs, "cold") == nil)
            #expect(recent(prefs, "cold") == .some(nil))

            try await prefs.set(.int32(43), forKey: "warm")
            #expect(recent(prefs, "warm") == nil, "the write changed the document")
            #expect(recent(prefs, "cold") == nil, "every value goes with the document")
            #expect(try cached(prefs, "warm") == .int32(43))
            #expect(recent(prefs, "warm") == .some(.int32(43)))
            try await prefs.remove("warm")
            #expect(recent(prefs, "warm") == nil)
            #expect(try cached(prefs, "warm") == nil)
            #expect(recent(prefs, "warm") == .some(nil))
        }
    }

    @Test func aWriteAcknowledgedByAnotherProcessIsSeenByTheNextRead() async throws {
        try await withGroup { dataDirectory, prefs in
            try await prefs.set(.int32(-1), forKey: "key")
            for round in 0..<10 {
                // Reads the file the other process wrote, then the document read is cached.
                #expect(try await prefs.value(forKey: "key") == .int32(Int32(round - 1)), "round \(round)")
                #expect(try cached(prefs, "key") == .int32(Int32(round - 1)), "round \(round)")
                #expect(recent(prefs, "key") == .some(.int32(Int32(round - 1))), "round \(round)")
                let writer = try StorePeer(
                    "set", dataDirectory: dataDirectory, group: "group.test",
                    ["--key", "key", "--value", "{\"int32\":\(round)}"])
                try await writer.waitForSuccess()
                #expect(recent(prefs, "key") == nil, "round \(round): the other process's write is not seen")
                #expect(try byBytes(prefs, "key") == nil, "round \(round): the read by bytes did not see the write")
            }
        }
    }

    /// The read by bytes answers what the read by `String` answers: from the values at hand, or
    /// else from the index (which leaves the value at hand), or not at all once the file changed.
    @Test func theReadByBytesAnswersAsTheReadByString() async throws {
        try await withGroup { dataDirectory, prefs in
            try await prefs.set(.string("v1"), forKey: "key")
            #expect(recent(prefs, "key") == nil)
            #expect(try byBytes(prefs, "key") == .some(.string("v1")), "from the index")
            #expect(recent(prefs, "key") == .some(.string("v1")))
            #expect(try byBytes(prefs, "key") == .some(.string("v1")), "at hand")
            #expect(try byBytes(prefs, "absent") == .some(nil))
            let writer = try StorePeer(
                "set", dataDirectory: dataDirectory, group: "group.test", ["--key", "key", "--value", "\"v2\""])
            try await writer.waitForSuccess()
            #expect(try byBytes(prefs, "key") == nil, "the file changed: only a read of it tells")
            if case .known = try prefs.cachedValue(forKey: "key") { Issue.record("the read by String answered") }
            #expect(try await prefs.value(forKey: "key") == .string("v2"))
            #expect(try byBytes(prefs, "key") == .some(.string("v2")))
            #expect(try byBytes(prefs, "key") == .some(.string("v2")), "at hand")
        }
    }

    /// A value read before another process wrote its key is not given back once the file it
    /// wrote is read and vouched for again by a read of another key: it came from the document
    /// before, and only values of the document now are given back.
    @Test func aValueOfTheDocumentBeforeIsNotGivenBackOnceTheNewOneIsCurrent() async throws {
        try await withGroup { dataDirectory, prefs in
            try await prefs.set(.int32(1), forKey: "a")
            try await prefs.set(.int32(1), forKey: "b")
            #expect(try byBytes(prefs, "a") == .some(.int32(1)))
            #expect(try byBytes(prefs, "b") == .some(.int32(1)))
            #expect(recent(prefs, "b") == .some(.int32(1)))
            let writer = try StorePeer(
                "set", dataDirectory: dataDirectory, group: "group.test", ["--key", "b", "--value", "{\"int32\":2}"])
            try await writer.waitForSuccess()
            // "a" reads the new file and vouches for it (its `stat` matches the file read).
            #expect(try await prefs.value(forKey: "a") == .int32(1))
            #expect(try byBytes(prefs, "a") == .some(.int32(1)))
            #expect(recent(prefs, "b") == nil, "a value of the document before was given back")
            #expect(try byBytes(prefs, "b") == .some(.int32(2)))
        }
    }

    /// A tool that rewrites the file in place (same inode, same size) raises an event too.
    @Test func aFileRewrittenInPlaceIsSeenByTheNextRead() async throws {
        try await withGroup { _, prefs in
            try await prefs.set(.string("aaaa"), forKey: "key")
            #expect(try cached(prefs, "key") == .string("aaaa"))
            #expect(recent(prefs, "key") == .some(.string("aaaa")))
            let path = prefs.preferencesFile
            let text = try String(contentsOfFile: path, encoding: .utf8)
            let handle = try #require(FileHandle(forWritingAtPath: path))
            try handle.write(contentsOf: Data(text.replacingOccurrences(of: "aaaa", with: "bbbb").utf8))
            try handle.close()
            #expect(recent(prefs, "key") == nil)
            #expect(try await prefs.value(forKey: "key") == .string("bbbb"))
            #expect(try cached(prefs, "key") == .string("bbbb"))
            #expect(recent(prefs, "key") == .some(.string("bbbb")))
        }
    }

    /// Keys are told apart by their bytes: a key that is canonically equivalent but spelled with
    /// other code units is another key.
    @Test func keysAreToldApartByTheirBytes() async throws {
        try await withGroup { _, prefs in
            try await prefs.set(.string("composed"), forKey: "\u{E9}")
            try await prefs.set(.string("decomposed"), forKey: "e\u{301}")
            #expect(try cached(prefs, "\u{E9}") == .string("composed"))
            #expect(recent(prefs, "e\u{301}") == nil)
            #expect(try cached(prefs, "e\u{301}") == .string("decomposed"))
            #expect(recent(prefs, "\u{E9}") == .some(.string("composed")))
            #expect(recent(prefs, "e\u{301}") == .some(.string("decomposed")))
            let invalid: [UInt8] = [0xC3]
            if case .known = invalid.withUnsafeBytes({ prefs.cachedValue(forKeyUTF8: $0) }) {
                Issue.record("bytes that are no UTF-8 were answered")
            }
        }
    }

    @Test func onlyShortKeysAndSmallValuesAreRemembered() async throws {
        try await withGroup { _, prefs in
            // A string's text is its bytes and two quotes.
            let largest = String(repeating: "v", count: RecentValues.maximumTextLength - 2)
            let tooLarge = largest + "v"
            let longestKey = String(repeating: "k", count: RecentValues.maximumKeyLength)
            let tooLongKey = longestKey + "k"
            try await prefs.set(.string(largest), forKey: "largest")
            try await prefs.set(.string(tooLarge), forKey: "tooLarge")
            try await prefs.set(.int32(1), forKey: longestKey)
            try await prefs.set(.int32(2), forKey: tooLongKey)
            for key in ["largest", "tooLarge", longestKey, tooLongKey] { _ = try cached(prefs, key) }
            #expect(recent(prefs, "largest") == .some(.string(largest)))
            #expect(recent(prefs, "tooLarge") == nil)
            #expect(recent(prefs, longestKey) == .some(.int32(1)))
            #expect(recent(prefs, tooLongKey) == nil)
            #expect(try cached(prefs, "tooLarge") == .string(tooLarge))
            #expect(try cached(prefs, tooLongKey) == .int32(2))
        }
    }

    /// However many keys are read, at most `slotCount` values are held; a key whose slot another
    /// key took is read through the index again, and answers the same.
    @Test func atMostSlotCountValuesAreHeld() async throws {
        try await withGroup { _, prefs in
            let keys = (0..<1_000).map { "key\($0)" }
            // Written as one file (a thousand durable writes would take seconds), then loaded.
            let members = keys.enumerated().map { "\"\($1)\": {\"int32\": \($0)}" }
            try FileManager.default.createDirectory(
                atPath: prefs.directory, withIntermediateDirectories: true)
            try Data("{\"version\": 1, \"values\": {\(members.joined(separator: ", "))}}".utf8)
                .write(to: URL(fileURLWithPath: prefs.preferencesFile))
            #expect(try await prefs.value(forKey: "key0") == .int32(0))
            for key in keys { _ = try cached(prefs, key) }
            let count = rememberedCount(prefs)
            #expect(count <= RecentValues.slotCount)
            #expect(count > RecentValues.slotCount / 2, "1,000 keys left only \(count) values")
            // Every held value first, then the keys whose slot another took (a read remembers it).
            var missed: [(index: Int, key: String)] = []
            for (index, key) in keys.enumerated() {
                if let value = recent(prefs, key) {
                    #expect(value == .int32(Int32(index)), "\(key)")
                } else {
                    missed.append((index, key))
                }
            }
            for (index, key) in missed { #expect(try cached(prefs, key) == .int32(Int32(index)), "\(key)") }
            let answered = keys.count - missed.count
            #expect(answered == count)
        }
    }

    /// Two keys of one slot: the one read last holds it.
    @Test func aKeyReadLaterTakesTheSlot() async throws {
        try await withGroup { _, prefs in
            let first = "key0"
            let slot = Array(first.utf8).withUnsafeBytes { RecentValues.slot(of: $0) }
            let second = try #require(
                (1..<10_000).lazy.map { "key\($0)" }.first { key in
                    Array(key.utf8).withUnsafeBytes { RecentValues.slot(of: $0) } == slot
                })
            try await prefs.set(.string("first"), forKey: first)
            try await prefs.set(.string("second"), forKey: second)
            #expect(try cached(prefs, first) == .string("first"))
            #expect(try cached(prefs, second) == .string("second"))
            #expect(recent(prefs, first) == nil)
            #expect(recent(prefs, second) == .some(.string("second")))
            #expect(try cached(prefs, first) == .string("first"))
            #expect(recent(prefs, first) == .some(.string("first")))
            #expect(recent(prefs, second) == nil)
            #expect(rememberedCount(prefs) == 1)
        }
    }
}

import ChannelBridgeCodec
import ChannelBridgeStore
import ChannelBridgeTestSupport
import Foundation
import Testing

/// A take made with a request id can be retried: the same id returns what the first take
/// returned and removes nothing more, while its receipt is kept (the group's last 32).
@Suite struct TakeRetryTests {
    @Test(arguments: StoreKind.allCases)
    func aRetriedTakeReturnsTheSameItemsOnceAndTakesNothingNew(kind: StoreKind) async throws {
        try await kind.withStore { store in
            try await store.appendToList(key: "itemList", values: ["a", "b"])
            #expect(try await store.take(key: "itemList", requestID: "t1") == .list(["a", "b"]))
            try await store.appendToList(key: "itemList", values: ["c"])
            // The retry of t1 (its reply lost) gets a and b again, and c stays for the next take.
            #expect(try await store.take(key: "itemList", requestID: "t1") == .list(["a", "b"]))
            #expect(try await store.value(forKey: "itemList") == .list(["c"]))
            #expect(try await store.take(key: "itemList", requestID: "t2") == .list(["c"]))
            #expect(try await store.take(key: "itemList", requestID: "t2") == .list(["c"]))
            #expect(try await store.value(forKey: "itemList") == nil)
        }
    }

    @Test(arguments: StoreKind.allCases)
    func aTakeOfAnAbsentKeyRecordsNothingSoItsRetryTakesAfresh(kind: StoreKind) async throws {
        try await kind.withStore { store in
            #expect(try await store.take(key: "k", requestID: "t") == nil)
            try await store.set("v", forKey: "k")
            #expect(try await store.take(key: "k", requestID: "t") == "v")
            #expect(try await store.value(forKey: "k") == nil)
        }
    }

    @Test(arguments: StoreKind.allCases)
    func theLast32ReceiptsAreKeptAndOlderOnesForgotten(kind: StoreKind) async throws {
        try await kind.withStore { store in
            for index in 0..<33 {
                try await store.set(.int64(Int64(index)), forKey: "k")
                #expect(try await store.take(key: "k", requestID: "t\(index)") == .int64(Int64(index)))
            }
            try await store.set("new", forKey: "k")
            // t1…t32 are kept; t0, the oldest, is forgotten: its retry takes afresh.
            #expect(try await store.take(key: "k", requestID: "t1") == .int64(1))
            #expect(try await store.take(key: "k", requestID: "t32") == .int64(32))
            #expect(try await store.value(forKey: "k") == "new")
            #expect(try await store.take(key: "k", requestID: "t0") == "new")
        }
    }

    @Test(arguments: StoreKind.allCases)
    func requestIDsAreComparedByCodeUnitsAndBounded(kind: StoreKind) async throws {
        try await kind.withStore { store in
            try await store.set("first", forKey: "k")
            #expect(try await store.take(key: "k", requestID: "\u{E9}") == "first")
            try await store.set("second", forKey: "k")
            // "e" + U+0301 is canonically equivalent to U+00E9 but another id.
            #expect(try await store.take(key: "k", requestID: "e\u{301}") == "second")
            let tooLong = String(repeating: "x", count: 129)
            let error = await #expect(throws: StoreError.self) { try await store.take(key: "k", requestID: tooLong) }
            #expect(error?.code == .invalidValue)
            await #expect(throws: StoreError.self) { try await store.take(key: "k", requestID: "") }
        }
    }

    /// The receipt is in the file, written with the removal: another process (here another
    /// store on the same directory, reading the file afresh) answers the retry.
    @Test func theReceiptIsWrittenWithTheRemovalAndReadByAnyProcess() async throws {
        try await TestDirectory.withPath { directory in
            let first = try AppGroupStore(dataDirectory: directory).group("group.local")
            try await first.appendToList(key: "itemList", values: ["a", .map(["n": .int32(1)])])
            #expect(
                try await first.take(key: "itemList", requestID: "lost-reply") == .list(["a", .map(["n": .int32(1)])]))
            let text = try String(contentsOfFile: first.preferencesFile, encoding: .utf8)
            #expect(text.contains(#""takeReceipts": ["#))
            #expect(
                text.contains(#"{"id": "lost-reply", "key": "itemList", "value": ["a",{"map":[["n",{"int32":1}]]}]}"#))
            let second = try AppGroupStore(dataDirectory: directory).group("group.local")
            #expect(
                try await second.take(key: "itemList", requestID: "lost-reply") == .list(["a", .map(["n": .int32(1)])]))
            #expect(try await second.allValues().isEmpty)
        }
    }

    /// A file whose receipts member is malformed reads (its values are intact); the receipts are
    /// dropped, and the next write leaves a well-formed member.
    @Test func aMalformedReceiptsMemberIsDroppedNotFatal() async throws {
        try await TestDirectory.withPath { directory in
            let prefs = try AppGroupStore(dataDirectory: directory).group("group.local")
            try FileManager.default.createDirectory(atPath: prefs.directory, withIntermediateDirectories: true)
            try #"{"version": 1, "values": {"k": "v"}, "takeReceipts": [{"id": 3}]}"#
                .write(toFile: prefs.preferencesFile, atomically: true, encoding: .utf8)
            #expect(try await prefs.value(forKey: "k") == "v")
            #expect(try await prefs.take(key: "k", requestID: "t") == "v")
            let text = try String(contentsOfFile: prefs.preferencesFile, encoding: .utf8)
            #expect(text.contains(#""takeReceipts": ["# + "\n" + #"    {"id": "t", "key": "k", "value": "v"}"#))
        }
    }
}

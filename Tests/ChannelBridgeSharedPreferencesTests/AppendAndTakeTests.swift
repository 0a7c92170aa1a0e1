import ChannelBridgeChannels
import ChannelBridgeCodec
import ChannelBridgeStore
import ChannelBridgeTestSupport
import Testing

/// `appendToList` and `take`: the store's atomic list append and read-and-remove on the channel.
@Suite struct AppendAndTakeTests {
    @Test func appendCreatesTheListAndAppendsInOrderThenTakeEmptiesIt() async throws {
        let store = InMemoryAppGroupStore()
        let session = try await PreferencesSession.start(provider: store)
        defer { session.close() }
        try await withHangGuard { () async throws in
            #expect(try await session.call("appendToList", ["key": "itemList", "values": ["a"]]) == .null)
            #expect(
                try await session.call("appendToList", ["key": "itemList", "values": ["b", .int32(3), .null]]) == .null)
            #expect(try await store.group("group.local").value(forKey: "itemList") == ["a", "b", .int32(3), .null])
            #expect(try await session.call("take", ["key": "itemList"]) == ["a", "b", .int32(3), .null])
            #expect(try await store.group("group.local").value(forKey: "itemList") == nil)
            #expect(try await session.call("take", ["key": "itemList"]) == .null)
            // An empty append still leaves a list.
            #expect(try await session.call("appendToList", ["key": "empty", "values": []]) == .null)
            #expect(try await session.call("get", ["key": "empty"]) == [])
        }
    }

    @Test func aTakeWithARequestIDIsAnsweredAgainByItsRetryAndRefusesABadID() async throws {
        let session = try await PreferencesSession.start(provider: InMemoryAppGroupStore(), entitled: ["group.local"])
        defer { session.close() }
        try await withHangGuard { () async throws in
            try await session.call("appendToList", ["key": "itemList", "values": ["a"]])
            #expect(try await session.call("take", ["key": "itemList", "requestId": "r1"]) == ["a"])
            try await session.call("appendToList", ["key": "itemList", "values": ["b"]])
            #expect(try await session.call("take", ["key": "itemList", "requestId": "r1"]) == ["a"])
            #expect(try await session.call("take", ["key": "itemList", "requestId": .null]) == ["b"])
            let error = await #expect(throws: MethodError.self) {
                try await session.call("take", ["key": "itemList", "requestId": ""])
            }
            #expect(
                error
                    == invalidArguments(
                        "take", "requestId", "the argument 'requestId' must be 1 to 128 bytes of UTF-8, got 0"))
            await #expect(throws: MethodError.self) {
                try await session.call("take", ["key": "itemList", "requestId": 5])
            }
        }
    }

    @Test func takeAnswersAnyValueAsStored() async throws {
        let store = InMemoryAppGroupStore()
        let session = try await PreferencesSession.start(provider: store)
        defer { session.close() }
        try await withHangGuard { () async throws in
            try await session.call("setInt", ["key": "n", "value": .int64(7)])
            #expect(try await session.call("take", ["key": "n"]) == .int64(7))
            #expect(try await session.call("get", ["key": "n"]) == .null)
        }
    }

    @Test(arguments: [
        ("name", StandardValue.string("text"), "String"),
        ("bytes", StandardValue.uint8List([1]), "Uint8List"),
        ("ints", StandardValue.int32List([1]), "Int32List"),
        ("count", StandardValue.int32(1), "int (int32)"),
    ])
    func appendToAKeyThatHoldsNoListIsWrongTypeAndWritesNothing(
        key: String, stored: StandardValue, typeName: String
    )
        async throws
    {
        let store = InMemoryAppGroupStore()
        try await store.group("group.local").set(stored, forKey: key)
        let session = try await PreferencesSession.start(provider: store)
        defer { session.close() }
        try await withHangGuard { () async throws in
            let error = await #expect(throws: MethodError.self) {
                try await session.call("appendToList", ["key": .string(key), "values": ["x"]])
            }
            #expect(error == wrongType("appendToList", key: key, stored: typeName, wanted: "List"))
            #expect(try await store.group("group.local").value(forKey: key) == stored)
        }
    }

    @Test func missingOrNonListValuesAreInvalidArguments() async throws {
        let session = try await PreferencesSession.start(provider: InMemoryAppGroupStore())
        defer { session.close() }
        try await withHangGuard { () async throws in
            let missing = await #expect(throws: MethodError.self) {
                try await session.call("appendToList", ["key": "k"])
            }
            #expect(missing == invalidArguments("appendToList", "values", "the argument 'values' is missing"))
            let notList = await #expect(throws: MethodError.self) {
                try await session.call("appendToList", ["key": "k", "values": "x"])
            }
            #expect(
                notList
                    == invalidArguments("appendToList", "values", "the argument 'values' must be a List, got String"))
            let noKey = await #expect(throws: MethodError.self) { try await session.call("take", ["values": []]) }
            #expect(noKey == invalidArguments("take", "key", "the argument 'key' is missing"))
        }
    }
}

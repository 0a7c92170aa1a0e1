import ChannelBridgeChannels
import ChannelBridgeCodec
import ChannelBridgeStore
import ChannelBridgeTestSupport
import Testing

/// Setters, removal and `getAll`, checked through the plugin and in the store behind it.
@Suite struct SetterTests {
    @Test func settersStoreTheirValueAsGivenAndAnswerNull() async throws {
        let store = InMemoryAppGroupStore()
        let session = try await PreferencesSession.start(provider: store)
        defer { session.close() }
        let writes: [(method: String, key: String, value: StandardValue)] = [
            ("setBool", "bool", false),
            ("setInt", "int32", .int32(-5)),
            ("setInt", "int64", .int64(5)),  // small, but sent as an int64: stays one
            ("setInt", "int64big", .int64(.max)),
            ("setDouble", "double", .float64(-0.0)),
            ("setString", "string", ""),
            ("setStringArray", "list", ["x", "", "y"]),
            ("setStringArray", "emptyList", []),
            ("setBytes", "bytes", .uint8List([0, 1, 254, 255])),
        ]
        try await withHangGuard { () async throws in
            for write in writes {
                #expect(
                    try await session.call(write.method, ["key": .string(write.key), "value": write.value]) == .null)
            }
            let prefs = try store.group("group.local")
            for write in writes {
                #expect(try await prefs.value(forKey: write.key) == write.value, "\(write.key) in the store")
                #expect(try await session.call("get", ["key": .string(write.key)]) == write.value, "get \(write.key)")
            }
            #expect(try await session.call("getInt", ["key": "int64"]) == .int64(5))
            #expect(try await session.call("getInt", ["key": "int32"]) == .int32(-5))
            #expect(try await session.call("getStringArray", ["key": "list"]) == ["x", "", "y"])
            #expect(try await session.call("getBytes", ["key": "bytes"]) == .uint8List([0, 1, 254, 255]))
            #expect(try await session.call("getDouble", ["key": "double"]) == .float64(-0.0))
        }
    }

    @Test(arguments: ["setBool", "setInt", "setDouble", "setString", "setStringArray", "setBytes"])
    func aNullValueRemovesTheKey(setter: String) async throws {
        let store = InMemoryAppGroupStore()
        try await store.group("group.local").set("old", forKey: "k")
        try await store.group("group.local").set("kept", forKey: "other")
        let session = try await PreferencesSession.start(provider: store)
        defer { session.close() }
        try await withHangGuard { () async throws in
            #expect(try await session.call(setter, ["key": "k", "value": nil]) == .null)
            #expect(try await store.group("group.local").allValues() == [PreferenceEntry(key: "other", value: "kept")])
        }
    }

    @Test func setterValuesOfTheWrongTypeAreRefusedAndNothingIsWritten() async throws {
        let store = InMemoryAppGroupStore()
        let session = try await PreferencesSession.start(provider: store)
        defer { session.close() }
        let cases: [(method: String, value: StandardValue, problem: String)] = [
            ("setBool", 1, "must be bool or null, got int (int32)"),
            ("setInt", "1", "must be int or null, got String"),
            ("setInt", 1.0, "must be int or null, got double"),
            ("setDouble", 1, "must be double or null, got int (int32)"),
            ("setDouble", .int64(1), "must be double or null, got int (int64)"),
            ("setString", .uint8List([65]), "must be String or null, got Uint8List"),
            ("setStringArray", ["a", 1], "must be List<String> or null, got List"),
            ("setStringArray", "a", "must be List<String> or null, got String"),
            ("setStringArray", .int32List([]), "must be List<String> or null, got Int32List"),
            ("setBytes", [1, 2], "must be Uint8List or null, got List"),
            ("setBytes", ["k": 1], "must be Uint8List or null, got Map"),
        ]
        try await withHangGuard { () async throws in
            for entry in cases {
                let expected = invalidArguments(
                    entry.method, "value", "the argument 'value' for key 'k' \(entry.problem)")
                await #expect(throws: expected) {
                    try await session.call(entry.method, ["key": "k", "value": entry.value])
                }
            }
            await #expect(
                throws: invalidArguments(
                    "setString", "value", "the argument 'value' is missing (pass null to remove the key)")
            ) {
                try await session.call("setString", ["key": "k"])
            }
            await #expect(throws: invalidArguments("setString", "key", "the argument 'key' is missing")) {
                try await session.call("setString", ["value": "v"])
            }
            await #expect(
                throws: invalidArguments("setInt", nil, "the arguments must be a map with 'key', got int (int32)")
            ) {
                try await session.call("setInt", 5)
            }
            await #expect(throws: invalidArguments("remove", "key", "the argument 'key' must be a String, got null")) {
                try await session.call("remove", ["key": nil])
            }
            #expect(try await store.group("group.local").allValues() == [])
        }
    }

    @Test func removeAndRemoveAll() async throws {
        let store = InMemoryAppGroupStore()
        let session = try await PreferencesSession.start(provider: store)
        defer { session.close() }
        try await withHangGuard { () async throws in
            try await session.call("setString", ["key": "a", "value": "1"])
            try await session.call("setString", ["key": "b", "value": "2"])
            #expect(try await session.call("remove", ["key": "a"]) == .null)
            #expect(try await session.call("remove", ["key": "never-there"]) == .null)
            #expect(try await session.call("getAll") == ["b": "2"])
            try await session.call("setInt", ["key": "c", "value": 3])
            #expect(try await session.call("removeAll") == .null)
            #expect(try await session.call("getAll") == [:])
            #expect(try await store.group("group.local").allValues() == [])
            #expect(try await session.call("removeAll") == .null)  // nothing to remove
        }
    }

    @Test func getAllListsKeysInTheStoreOrder() async throws {
        let store = InMemoryAppGroupStore()
        let session = try await PreferencesSession.start(provider: store)
        defer { session.close() }
        try await withHangGuard { () async throws in
            #expect(try await session.call("getAll") == [:])
            try await session.call("setString", ["key": "c", "value": "C"])
            try await session.call("setInt", ["key": "a", "value": .int64(1)])
            try await session.call("setStringArray", ["key": "b", "value": ["B"]])
            try await session.call("setDouble", ["key": "a", "value": 2.5])  // overwriting keeps its place
            #expect(try await session.call("getAll") == ["c": "C", "a": 2.5, "b": ["B"]])
            try await session.call("remove", ["key": "c"])
            try await session.call("setBool", ["key": "c", "value": true])  // stored again: last
            #expect(try await session.call("getAll") == ["a": 2.5, "b": ["B"], "c": true])
        }
    }
}

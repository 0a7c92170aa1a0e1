import ChannelBridgeChannels
import ChannelBridgeCodec
import ChannelBridgeStore
import ChannelBridgeTestSupport
import Testing

/// What each getter answers for each kind of stored value.
@Suite struct GetterTests {
    /// One stored value of every kind, with the name its type has in messages.
    static let stored: [(key: String, value: StandardValue, typeName: String)] = [
        ("bool", true, "bool"),
        ("int32", .int32(7), "int (int32)"),
        ("int64", .int64(7), "int (int64)"),
        ("double", .float64(1.5), "double"),
        ("string", "text", "String"),
        ("stringList", ["a", "b"], "List<String>"),
        ("emptyList", [], "List"),
        ("mixedList", ["a", 1], "List"),
        ("bytes", .uint8List([0, 255]), "Uint8List"),
        ("int32List", .int32List([1]), "Int32List"),
        ("float64List", .float64List([1]), "Float64List"),
        ("map", ["a": 1], "Map"),
    ]

    /// What a getter answers for a stored value, or `nil` for WRONG_TYPE: written out by hand.
    static func expected(_ getter: String, _ key: String, _ value: StandardValue) -> StandardValue? {
        switch (getter, key) {
        case ("getBool", "bool"), ("getInt", "int32"), ("getInt", "int64"), ("getDouble", "double"),
            ("getString", "string"), ("getStringArray", "stringList"), ("getStringArray", "emptyList"),
            ("getBytes", "bytes"):
            return value
        case ("getDouble", "int32"), ("getDouble", "int64"):
            return .float64(7)
        default:
            return nil
        }
    }

    static let wanted = [
        "getBool": "bool", "getInt": "int", "getDouble": "double", "getString": "String",
        "getStringArray": "List<String>", "getBytes": "Uint8List",
    ]

    @Test(arguments: ["getBool", "getInt", "getDouble", "getString", "getStringArray", "getBytes"])
    func typedGetterMatrix(getter: String) async throws {
        let store = InMemoryAppGroupStore()
        for entry in Self.stored { try await store.group("group.local").set(entry.value, forKey: entry.key) }
        let session = try await PreferencesSession.start(provider: store)
        defer { session.close() }
        try await withHangGuard { () async throws in
            for entry in Self.stored {
                if let value = Self.expected(getter, entry.key, entry.value) {
                    #expect(
                        try await session.call(getter, ["key": .string(entry.key)]) == value, "\(getter) \(entry.key)")
                } else {
                    let expected = wrongType(
                        getter, key: entry.key, stored: entry.typeName, wanted: Self.wanted[getter]!)
                    await #expect(throws: expected, "\(getter) \(entry.key)") {
                        try await session.call(getter, ["key": .string(entry.key)])
                    }
                }
            }
            // A missing key is null for every getter.
            #expect(try await session.call(getter, ["key": "absent"]) == .null)
        }
    }

    @Test func getAnswersAnyValueAsStored() async throws {
        let store = InMemoryAppGroupStore()
        for entry in Self.stored { try await store.group("group.local").set(entry.value, forKey: entry.key) }
        let session = try await PreferencesSession.start(provider: store)
        defer { session.close() }
        try await withHangGuard { () async throws in
            for entry in Self.stored {
                #expect(try await session.call("get", ["key": .string(entry.key)]) == entry.value, "get \(entry.key)")
            }
            #expect(try await session.call("get", ["key": "absent"]) == .null)
        }
    }

    @Test func getDoubleWidensAnIntButKeepsTheStoredWidth() async throws {
        let store = InMemoryAppGroupStore()
        let session = try await PreferencesSession.start(provider: store)
        defer { session.close() }
        try await withHangGuard { () async throws in
            try await session.call("setInt", ["key": "big", "value": .int64(1 << 40)])
            #expect(try await session.call("getDouble", ["key": "big"]) == .float64(1_099_511_627_776))
            #expect(try await session.call("getInt", ["key": "big"]) == .int64(1 << 40))
            #expect(try await store.group("group.local").value(forKey: "big") == .int64(1 << 40))
        }
    }

    @Test func getterArgumentsAreChecked() async throws {
        let session = try await PreferencesSession.start(provider: InMemoryAppGroupStore())
        defer { session.close() }
        try await withHangGuard { () async throws in
            await #expect(throws: invalidArguments("get", nil, "the arguments must be a map with 'key', got null")) {
                try await session.call("get")
            }
            await #expect(throws: invalidArguments("getString", "key", "the argument 'key' is missing")) {
                try await session.call("getString", ["name": "k"])
            }
            await #expect(
                throws: invalidArguments("getInt", "key", "the argument 'key' must be a String, got int (int32)")
            ) {
                try await session.call("getInt", ["key": 3])
            }
            await #expect(
                throws: invalidArguments(
                    "getStringArray", nil, "the arguments must be a map with 'key', got List<String>")
            ) {
                try await session.call("getStringArray", ["key"])
            }
        }
    }

    @Test func unknownMethodsAreNotImplemented() async throws {
        // Before any group is chosen too: an unknown method never reaches the group check.
        let session = try await PreferencesSession.start(
            provider: InMemoryAppGroupStore(), entitled: ["group.a", "group.b"])
        defer { session.close() }
        try await withHangGuard { () async throws in
            for method in ["getStringList", "setStringList", "clear", "GET", ""] {
                let error = try await #require(throws: ChannelError.self) {
                    try await session.call(method, ["key": "k"])
                }
                #expect(error.code == .notImplemented)
                #expect(error.channel == "shared_preference_app_group")
                #expect(error.method == method)
                #expect(
                    error.message
                        == "No implementation found for method \(method) on channel shared_preference_app_group")
            }
        }
    }
}

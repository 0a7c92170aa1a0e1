import ChannelBridgeChannels
import ChannelBridgeCodec
import ChannelBridgeStore
import ChannelBridgeTestSupport
import Testing

/// Choosing the app group: entitlement, the default group, and the group being per session.
@Suite struct AppGroupSelectionTests {
    @Test func setAppGroupChoosesAnEntitledGroup() async throws {
        let store = InMemoryAppGroupStore()
        let session = try await PreferencesSession.start(provider: store, entitled: ["group.a", "group.b"])
        defer { session.close() }
        try await withHangGuard { () async throws in
            #expect(try await session.call("setAppGroup", ["appGroup": "group.b"]) == .null)
            try await session.call("setString", ["key": "k", "value": "in b"])
            #expect(try await store.group("group.b").value(forKey: "k") == "in b")
            #expect(try await store.group("group.a").value(forKey: "k") == nil)
        }
    }

    @Test func anUnentitledGroupIsRefusedAndThePreviousGroupKept() async throws {
        let store = InMemoryAppGroupStore()
        try await store.group("group.a").set("from a", forKey: "k")
        try await store.group("group.evil").set("from evil", forKey: "k")
        let session = try await PreferencesSession.start(provider: store, entitled: ["group.a", "group.b"])
        defer { session.close() }
        try await withHangGuard { () async throws in
            try await session.call("setAppGroup", ["appGroup": "group.a"])
            await #expect(throws: notEntitled("group.evil", entitled: ["group.a", "group.b"])) {
                try await session.call("setAppGroup", ["appGroup": "group.evil"])
            }
            #expect(try await session.call("getString", ["key": "k"]) == "from a")
        }
    }

    @Test func anUnentitledGroupBeforeAnyIsChosenLeavesNone() async throws {
        let session = try await PreferencesSession.start(
            provider: InMemoryAppGroupStore(), entitled: ["group.a", "group.b"])
        defer { session.close() }
        try await withHangGuard { () async throws in
            await #expect(throws: notEntitled("group.c", entitled: ["group.a", "group.b"])) {
                try await session.call("setAppGroup", ["appGroup": "group.c"])
            }
            await #expect(throws: appGroupHasNotBeenSet("get", entitled: ["group.a", "group.b"])) {
                try await session.call("get", ["key": "k"])
            }
        }
    }

    /// Every method but `setAppGroup` needs a group, even with arguments that are wrong as well.
    @Test(arguments: [
        "get", "getBool", "getInt", "getDouble", "getString", "getStringArray", "getBytes", "getAll",
        "setBool", "setInt", "setDouble", "setString", "setStringArray", "setBytes", "remove", "removeAll",
    ])
    func everyMethodNeedsAGroupFirst(method: String) async throws {
        let session = try await PreferencesSession.start(
            provider: InMemoryAppGroupStore(), entitled: ["group.a", "group.b"])
        defer { session.close() }
        try await withHangGuard { () async throws in
            await #expect(throws: appGroupHasNotBeenSet(method, entitled: ["group.a", "group.b"])) {
                try await session.call(method, ["key": "k", "value": "v"])
            }
            await #expect(throws: appGroupHasNotBeenSet(method, entitled: ["group.a", "group.b"])) {
                try await session.call(method)
            }
        }
    }

    @Test func theOnlyEntitledGroupIsTheDefault() async throws {
        let store = InMemoryAppGroupStore()
        try await store.group("group.only").set(3, forKey: "n")
        let session = try await PreferencesSession.start(provider: store, entitled: ["group.only"])
        defer { session.close() }
        try await withHangGuard { () async throws in
            #expect(try await session.call("getInt", ["key": "n"]) == .int32(3))
        }
    }

    @Test func theHostDefaultIsGroupLocal() async throws {
        let store = InMemoryAppGroupStore()
        let session = try await PreferencesSession.start(provider: store)  // entitled groups not set
        defer { session.close() }
        try await withHangGuard { () async throws in
            try await session.call("setBool", ["key": "flag", "value": true])
            #expect(try await store.group("group.local").value(forKey: "flag") == true)
            await #expect(throws: notEntitled("group.other", entitled: ["group.local"])) {
                try await session.call("setAppGroup", ["appGroup": "group.other"])
            }
        }
    }

    @Test func noEntitledGroupRefusesEverything() async throws {
        let session = try await PreferencesSession.start(provider: InMemoryAppGroupStore(), entitled: [])
        defer { session.close() }
        try await withHangGuard { () async throws in
            await #expect(throws: notEntitled("group.local", entitled: [])) {
                try await session.call("setAppGroup", ["appGroup": "group.local"])
            }
            await #expect(throws: appGroupHasNotBeenSet("getAll", entitled: [])) { try await session.call("getAll") }
        }
    }

    @Test func theGroupIsChosenPerSession() async throws {
        let store = InMemoryAppGroupStore()
        let first = try await PreferencesSession.start(provider: store, entitled: ["group.a", "group.b"])
        defer { first.close() }
        let second = try await PreferencesSession.start(provider: store, entitled: ["group.a", "group.b"])
        defer { second.close() }
        try await withHangGuard { () async throws in
            try await first.call("setAppGroup", ["appGroup": "group.a"])
            try await second.call("setAppGroup", ["appGroup": "group.b"])
            try await first.call("setString", ["key": "k", "value": "written by first"])
            #expect(try await second.call("getString", ["key": "k"]) == .null)
            try await second.call("setAppGroup", ["appGroup": "group.a"])
            #expect(try await second.call("getString", ["key": "k"]) == "written by first")
            // The second session's change of group did not move the first.
            try await second.call("setAppGroup", ["appGroup": "group.b"])
            try await first.call("setString", ["key": "k2", "value": "still a"])
            #expect(try await store.group("group.a").value(forKey: "k2") == "still a")
            #expect(try await store.group("group.b").value(forKey: "k2") == nil)
        }
    }

    @Test func setAppGroupArgumentsAreChecked() async throws {
        let session = try await PreferencesSession.start(
            provider: InMemoryAppGroupStore(), entitled: ["group.a", "group.b"])
        defer { session.close() }
        try await withHangGuard { () async throws in
            await #expect(throws: invalidArguments("setAppGroup", "appGroup", "the argument 'appGroup' is missing")) {
                try await session.call("setAppGroup", [:])
            }
            await #expect(
                throws: invalidArguments("setAppGroup", nil, "the arguments must be a map with 'appGroup', got String")
            ) {
                try await session.call("setAppGroup", "group.a")
            }
            await #expect(
                throws: invalidArguments(
                    "setAppGroup", "appGroup", "the argument 'appGroup' must be a String, got null")
            ) {
                try await session.call("setAppGroup", ["appGroup": nil])
            }
        }
    }
}

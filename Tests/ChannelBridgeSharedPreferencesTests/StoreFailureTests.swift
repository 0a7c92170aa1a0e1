import ChannelBridgeChannels
import ChannelBridgeCodec
import ChannelBridgeStore
import ChannelBridgeTestSupport
import Testing

/// When the store cannot serve: a corrupt file, no store at all, a group name the store refuses.
@Suite struct StoreFailureTests {
    static let corrupt = MethodError(
        code: "STORE_ERROR",
        message: "The preferences file /data/app-groups/group.local/preferences.json is corrupt: not JSON at byte 0",
        details: ["storeCode": "corruptFile", "path": "/data/app-groups/group.local/preferences.json"])

    static let calls: [(String, StandardValue)] = [
        ("get", ["key": "k"]), ("getString", ["key": "k"]), ("getAll", nil),
        ("setString", ["key": "k", "value": "v"]), ("setInt", ["key": "k", "value": nil]),
        ("remove", ["key": "k"]), ("removeAll", nil),
    ]

    @Test(arguments: calls)
    func aCorruptFileIsAStoreErrorNamingIt(method: String, arguments: StandardValue) async throws {
        let session = try await PreferencesSession.start(provider: CorruptStoreProvider())
        defer { session.close() }
        try await withHangGuard { () async throws in
            await #expect(throws: Self.corrupt) { try await session.call(method, arguments) }
            // The session keeps serving.
            #expect(try await session.call("setAppGroup", ["appGroup": "group.local"]) == .null)
        }
    }

    @Test func aCorruptFileRefusesAChangeStream() async throws {
        let session = try await PreferencesSession.start(provider: CorruptStoreProvider())
        defer { session.close() }
        try await withHangGuard { () async throws in
            await #expect(throws: Self.corrupt) {
                for try await _ in session.changes.receiveBroadcastStream(arguments: ["appGroup": "group.local"]) {}
            }
        }
    }

    @Test func argumentsAreCheckedBeforeTheStore() async throws {
        let session = try await PreferencesSession.start(provider: CorruptStoreProvider())
        defer { session.close() }
        try await withHangGuard { () async throws in
            await #expect(throws: invalidArguments("getString", "key", "the argument 'key' is missing")) {
                try await session.call("getString", [:])
            }
        }
    }

    @Test func withoutAStoreCallsAnswerStoreUnavailable() async throws {
        let session = try await PreferencesSession.start(provider: nil)
        defer { session.close() }
        let unavailable = MethodError(
            code: "STORE_UNAVAILABLE",
            message:
                "No preference store is available: the host gave shared_preference_app_group no PreferenceStoreProvider"
        )
        try await withHangGuard { () async throws in
            #expect(try await session.call("setAppGroup", ["appGroup": "group.local"]) == .null)
            await #expect(throws: unavailable) { try await session.call("getString", ["key": "k"]) }
            await #expect(throws: unavailable) { try await session.call("removeAll") }
            await #expect(throws: unavailable) {
                for try await _ in session.changes.receiveBroadcastStream(arguments: ["appGroup": "group.local"]) {}
            }
        }
    }

    @Test func aGroupNameTheStoreRefusesIsAStoreError() async throws {
        let session = try await PreferencesSession.start(provider: InMemoryAppGroupStore(), entitled: ["bad/group"])
        defer { session.close() }
        try await withHangGuard { () async throws in
            await #expect(
                throws: MethodError(
                    code: "STORE_ERROR", message: "invalid app group name \"bad/group\": it contains '/'",
                    details: ["storeCode": "invalidGroupName"])
            ) {
                try await session.call("getAll")
            }
        }
    }
}

import ChannelBridgeCodec
import ChannelBridgeMessenger
import ChannelBridgePlugins
import ChannelBridgeSharedPreferences
import ChannelBridgeStore
import ChannelBridgeTestSupport
import ChannelBridgeTesting
import Testing

private let channel = "shared_preference_app_group"

/// A get on a connection, to the method of the call before it, with arguments of exactly
/// `{"key": String}`, is answered from the request's bytes, its arguments never decoded
/// (`PreferenceMethodHandler.answerImmediately(_:encodedArguments:)`). Exact bytes in, exact reply
/// bytes out: each request is sent twice on one session (the first decoded, the second read from
/// its bytes), and both replies are the expected envelope, and the reply of the same request
/// decoded on a messenger that has no in-place path.
@Suite struct EncodedGetTests {
    /// `getInt {key: "warm"}`.
    static let getIntWarm = hex("07 06 676574496e74  0d 01  07 03 6b6579 07 04 7761726d")

    /// The replies to `request` sent twice on a connection whose host runs the plugin, and once to
    /// the plugin on a `RecordingMessenger` (every call decoded), each session on `provider`.
    private func replies(
        to request: [UInt8], provider: (any PreferenceStoreProvider)?, entitled: [String]
    ) async throws -> (connection: [[UInt8]?], decoded: [UInt8]?) {
        try await withHangGuard {
            let session = try await PreferencesSession.start(provider: provider, entitled: entitled)
            defer { session.close() }
            var connection: [[UInt8]?] = []
            for _ in 0..<2 { connection.append(try await session.client.send(onChannel: channel, message: request)) }

            let messenger = RecordingMessenger()
            var environment = PluginEnvironment()
            environment.preferenceStoreProvider = provider
            environment.entitledAppGroups = entitled
            let registry = PluginRegistry(messenger: messenger, environment: environment)
            try await registry.register(SharedPreferenceAppGroupPlugin.self)
            let decoded = try await messenger.deliver(onChannel: channel, message: request)
            await registry.tearDown()
            return (connection, decoded)
        }
    }

    private func expectReplies(
        to request: [UInt8], provider: (any PreferenceStoreProvider)?, entitled: [String] = ["group.local"],
        are expected: [UInt8]?, sourceLocation: SourceLocation = #_sourceLocation
    ) async throws {
        let (connection, decoded) = try await replies(to: request, provider: provider, entitled: entitled)
        #expect(connection == [expected, expected], sourceLocation: sourceLocation)
        #expect(decoded == expected, sourceLocation: sourceLocation)
    }

    private func errorEnvelope(_ error: MethodError) throws -> [UInt8] {
        try StandardMethodCodec().encodeErrorEnvelope(error)
    }

    @Test func aCachedValueIsTheSuccessEnvelope() async throws {
        let store = InMemoryAppGroupStore()
        try await store.group("group.local").set(.int32(42), forKey: "warm")
        try await expectReplies(to: Self.getIntWarm, provider: store, are: hex("00 03 2a000000"))
        // getDouble {key: "warm"}: the int widened, aligned to 8 bytes in the envelope.
        let getDouble = hex("07 09 676574446f75626c65  0d 01  07 03 6b6579 07 04 7761726d")
        try await expectReplies(to: getDouble, provider: store, are: hex("00 06 000000000000 0000000000004540"))
        // get {key: "warm"}: the value as stored.
        let get = hex("07 03 676574  0d 01  07 03 6b6579 07 04 7761726d")
        try await expectReplies(to: get, provider: store, are: hex("00 03 2a000000"))
    }

    @Test func aMissingKeyIsNull() async throws {
        try await expectReplies(to: Self.getIntWarm, provider: InMemoryAppGroupStore(), are: hex("00 00"))
    }

    /// A key that is not ASCII, and one longer than a small string, in the size forms the decoder
    /// reads: `onlyString` reads what the decoder reads.
    @Test func keysOfEveryLengthAndScript() async throws {
        let store = InMemoryAppGroupStore()
        let long = String(repeating: "k", count: 300)
        try await store.group("group.local").set(.string("é"), forKey: "clé")
        try await store.group("group.local").set(.string("long"), forKey: long)
        // getString {key: "clé"}
        let accented = hex("07 09 676574537472696e67  0d 01  07 03 6b6579 07 04 636cc3a9")
        try await expectReplies(to: accented, provider: store, are: hex("00 07 02 c3a9"))
        // getString {key: 300 × "k"}, its size in the two-byte form.
        let longKey = hex("07 09 676574537472696e67  0d 01  07 03 6b6579 07 fe 2c01") + Array(long.utf8)
        try await expectReplies(to: longKey, provider: store, are: hex("00 07 04") + Array("long".utf8))
    }

    @Test func aKeyThatIsMissingOrNotAStringIsInvalidArguments() async throws {
        let store = InMemoryAppGroupStore()
        // getInt {name: "warm"}
        let missing = hex("07 06 676574496e74  0d 01  07 04 6e616d65 07 04 7761726d")
        try await expectReplies(
            to: missing, provider: store,
            are: try errorEnvelope(invalidArguments("getInt", "key", "the argument 'key' is missing")))
        // getInt {key: int32 5}
        let notString = hex("07 06 676574496e74  0d 01  07 03 6b6579 03 05000000")
        try await expectReplies(
            to: notString, provider: store,
            are: try errorEnvelope(
                invalidArguments("getInt", "key", "the argument 'key' must be a String, got int (int32)")))
        // getInt null
        let noArguments = hex("07 06 676574496e74  00")
        try await expectReplies(
            to: noArguments, provider: store,
            are: try errorEnvelope(
                invalidArguments("getInt", nil, "the arguments must be a map with 'key', got null")))
        // getInt {key: "warm", key: 5}: the first entry counts, as when decoded.
        let twice = hex("07 06 676574496e74  0d 02  07 03 6b6579 07 04 7761726d  07 03 6b6579 03 05000000")
        try await expectReplies(to: twice, provider: store, are: hex("00 00"))
    }

    @Test func aStoredValueOfAnotherTypeIsWrongType() async throws {
        let store = InMemoryAppGroupStore()
        try await store.group("group.local").set(.string("hot"), forKey: "warm")
        try await expectReplies(
            to: Self.getIntWarm, provider: store,
            are: try errorEnvelope(wrongType("getInt", key: "warm", stored: "String", wanted: "int")))
    }

    @Test func noGroupChosenIsAppGroupHasNotBeenSet() async throws {
        let entitled = ["group.a", "group.b"]
        try await expectReplies(
            to: Self.getIntWarm, provider: InMemoryAppGroupStore(), entitled: entitled,
            are: try errorEnvelope(appGroupHasNotBeenSet("getInt", entitled: entitled)))
    }

    /// The session's group is one the store refuses (not a valid directory name).
    @Test func aGroupTheStoreRefusesIsStoreError() async throws {
        let group = "../group"
        let refusal: StoreError
        do {
            try AppGroupStore.validate(groupName: group)
            Issue.record("'\(group)' was accepted as a group name")
            return
        } catch {
            refusal = error
        }
        var details: [StandardValue.MapEntry] = [.init("storeCode", .string(refusal.code.description))]
        if let path = refusal.path { details.append(.init("path", .string(path))) }
        try await expectReplies(
            to: Self.getIntWarm, provider: InMemoryAppGroupStore(), entitled: [group],
            are: try errorEnvelope(MethodError(code: "STORE_ERROR", message: refusal.message, details: .map(details))))
    }

    @Test func noStoreIsStoreUnavailable() async throws {
        try await expectReplies(
            to: Self.getIntWarm, provider: nil,
            are: try errorEnvelope(
                MethodError(
                    code: "STORE_UNAVAILABLE",
                    message: "No preference store is available: the host gave shared_preference_app_group "
                        + "no PreferenceStoreProvider")))
    }
}

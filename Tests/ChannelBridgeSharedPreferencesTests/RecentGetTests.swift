import ChannelBridgeCodec
import ChannelBridgeMessenger
import ChannelBridgePlugins
import ChannelBridgeSharedPreferences
import ChannelBridgeStore
import ChannelBridgeTestSupport
import ChannelBridgeTesting
import Testing

private let channel = "shared_preference_app_group"
private let group = "group.local"

/// A get on the file store answered from the value an earlier read left at hand
/// (`CachedPreferenceReading.cachedValue(forKeyUTF8:)`, found by the key's bytes) replies exactly
/// as a get that reads the document's index does, and sees every write acknowledged before it,
/// another process's too.
@Suite struct RecentGetTests {
    /// `METHOD {key: "warm"}` as the Standard codec encodes it.
    static func request(_ method: String, key: String = "warm") -> [UInt8] {
        [7, UInt8(method.utf8.count)] + Array(method.utf8) + hex("0d 01  07 03 6b6579 07")
            + [UInt8(key.utf8.count)] + Array(key.utf8)
    }

    /// Each request is sent three times on one session: the first is decoded (its method is new
    /// to the session) and reads the index; then a write of another key moves the document on, so
    /// the second, read from its bytes, finds nothing at hand and reads the index too; the third
    /// is answered from what the second left. Each reply must be `expected`, and so must the
    /// reply of a session that decodes every call.
    @Test(arguments: [
        ("getInt", "warm", hex("00 03 2a000000")),
        // The int widened, aligned to 8 bytes in the envelope.
        ("getDouble", "warm", hex("00 06 000000000000 0000000000004540")),
        ("get", "warm", hex("00 03 2a000000")),
        ("getString", "text", hex("00 07 02 c3a9")),
        ("getStringArray", "list", hex("00 0c 02 07 01 61 07 01 62")),
        ("getInt", "cold", hex("00 00")),
        ("get", "cold", hex("00 00")),
    ])
    func repliesAreThoseOfAReadOfTheIndex(method: String, key: String, expected: [UInt8]) async throws {
        try await withHangGuard {
            try await TestDirectory.withPath { dataDirectory in
                let store = AppGroupStore(dataDirectory: dataDirectory)
                let prefs = try store.group(group)
                try await prefs.set(.int32(42), forKey: "warm")
                try await prefs.set(.string("é"), forKey: "text")
                try await prefs.set(.list([.string("a"), .string("b")]), forKey: "list")
                let request = Self.request(method, key: key)

                let session = try await PreferencesSession.start(provider: store, entitled: [group])
                defer { session.close() }
                var replies: [[UInt8]?] = []
                replies.append(try await session.client.send(onChannel: channel, message: request))
                try await prefs.set(.int32(1), forKey: "other")
                for _ in 0..<2 { replies.append(try await session.client.send(onChannel: channel, message: request)) }
                #expect(replies == [expected, expected, expected])

                let messenger = RecordingMessenger()
                var environment = PluginEnvironment()
                environment.preferenceStoreProvider = store
                environment.entitledAppGroups = [group]
                let registry = PluginRegistry(messenger: messenger, environment: environment)
                try await registry.register(SharedPreferenceAppGroupPlugin.self)
                #expect(try await messenger.deliver(onChannel: channel, message: request) == expected)
                await registry.tearDown()
            }
        }
    }

    /// A value of another type than the getter's is `WRONG_TYPE` naming the key, every time.
    @Test func aStoredValueOfAnotherTypeIsWrongTypeEveryTime() async throws {
        try await withHangGuard {
            try await TestDirectory.withPath { dataDirectory in
                let store = AppGroupStore(dataDirectory: dataDirectory)
                try await store.group(group).set(.string("hot"), forKey: "warm")
                let session = try await PreferencesSession.start(provider: store, entitled: [group])
                defer { session.close() }
                let expected = try StandardMethodCodec().encodeErrorEnvelope(
                    wrongType("getInt", key: "warm", stored: "String", wanted: "int"))
                for call in 0..<3 {
                    let reply = try await session.client.send(onChannel: channel, message: Self.request("getInt"))
                    #expect(reply == expected, "call \(call + 1)")
                }
                // `get` of the same key, answered from what those reads left.
                for call in 0..<2 {
                    let reply = try await session.client.send(onChannel: channel, message: Self.request("get"))
                    #expect(reply == hex("00 07 03 686f74"), "get, call \(call + 1)")
                }
            }
        }
    }

    /// Between two gets of one session, another process (a real `channelbridge-store-peer`)
    /// writes the key and acknowledges it: the second get answers the new value.
    @Test func aWriteAcknowledgedByAnotherProcessIsSeenByTheNextGet() async throws {
        try await withHangGuard {
            try await TestDirectory.withPath { dataDirectory in
                let store = AppGroupStore(dataDirectory: dataDirectory)
                try await store.group(group).set(.int32(-1), forKey: "warm")
                let session = try await PreferencesSession.start(provider: store, entitled: [group])
                defer { session.close() }
                for round in 0..<8 {
                    // Twice: the second is answered from what the first left at hand.
                    for call in 0..<2 {
                        let reply = try await session.call("getInt", .map([.init("key", .string("warm"))]))
                        #expect(reply == .int32(Int32(round - 1)), "round \(round), call \(call + 1)")
                    }
                    let writer = try StorePeer(
                        "set", dataDirectory: dataDirectory, group: group,
                        ["--key", "warm", "--value", "{\"int32\":\(round)}"])
                    try await writer.waitForSuccess()
                }
                #expect(try await session.call("getInt", .map([.init("key", .string("warm"))])) == .int32(7))
            }
        }
    }
}

import ChannelBridgeChannels
import ChannelBridgeCodec
import ChannelBridgeMessenger
import ChannelBridgePlugins
import ChannelBridgeSharedPreferences
import ChannelBridgeStore
import ChannelBridgeTestSupport
import ChannelBridgeTesting
import Testing

private let channel = "shared_preference_app_group"

/// The plugin seen from the wire: requests delivered as bytes to a `RecordingMessenger`, every reply
/// the plugin sent recorded.
@Suite struct WireTests {
    private func registry(
        store: InMemoryAppGroupStore, entitled: [String]
    ) async throws -> (RecordingMessenger, PluginRegistry) {
        let messenger = RecordingMessenger()
        var environment = PluginEnvironment()
        environment.preferenceStoreProvider = store
        environment.entitledAppGroups = entitled
        let registry = PluginRegistry(messenger: messenger, environment: environment)
        try await PluginRegistrant(catalogue: PluginCatalogue([SharedPreferenceAppGroupPlugin.self]))
            .register(["SharedPreferenceAppGroupPlugin"], with: registry)
        return (messenger, registry)
    }

    @Test func registeredUnderThePublishedKeyAndChannels() async throws {
        let (messenger, registry) = try await registry(store: InMemoryAppGroupStore(), entitled: ["group.local"])
        #expect(registry.pluginKeys == ["SharedPreferenceAppGroupPlugin"])
        #expect(messenger.hasHandler(onChannel: "shared_preference_app_group"))
        #expect(messenger.hasHandler(onChannel: "shared_preference_app_group/changes"))
        await registry.tearDown()
        #expect(!messenger.hasHandler(onChannel: "shared_preference_app_group"))
        #expect(!messenger.hasHandler(onChannel: "shared_preference_app_group/changes"))
    }

    @Test func beforeSetAppGroupExactlyOneErrorReply() async throws {
        let (messenger, _) = try await registry(store: InMemoryAppGroupStore(), entitled: ["group.a", "group.b"])
        let codec = StandardMethodCodec()
        let request = try codec.encodeMethodCall(MethodCall("getString", arguments: ["key": "ShareKey"]))
        let reply = try await messenger.deliver(onChannel: channel, message: request)
        #expect(messenger.entries.count == 1)  // one reply, not the published plugin's two
        guard case .handlerReply(channel, let recorded)? = messenger.entries.first else {
            Issue.record("expected one handler reply, got \(messenger.entries)")
            return
        }
        #expect(recorded == reply)
        let envelope = try codec.decodeEnvelope(try #require(reply))
        #expect(envelope == .error(appGroupHasNotBeenSet("getString", entitled: ["group.a", "group.b"])))
        // The envelope starts with the error marker and the code, as Flutter writes it.
        #expect(Array(try #require(reply).prefix(29)) == hex("01 07 1a") + Array("APP_GROUP_HAS_NOT_BEEN_SET".utf8))
    }

    @Test func intWidthIsKeptOnTheWire() async throws {
        let store = InMemoryAppGroupStore()
        let (messenger, _) = try await registry(store: store, entitled: ["group.local"])
        // setInt {key: "n32", value: int32 5}
        let setInt32 = hex("07 06 736574496e74  0d 02  07 03 6b6579 07 03 6e3332  07 05 76616c7565 03 05000000")
        // setInt {key: "n64", value: int64 5}
        let setInt64 = hex("07 06 736574496e74  0d 02  07 03 6b6579 07 03 6e3634  07 05 76616c7565 04 0500000000000000")
        #expect(try await messenger.deliver(onChannel: channel, message: setInt32) == hex("00 00"))
        #expect(try await messenger.deliver(onChannel: channel, message: setInt64) == hex("00 00"))
        // getInt {key: "n32"} / {key: "n64"}
        let get32 = hex("07 06 676574496e74  0d 01  07 03 6b6579 07 03 6e3332")
        let get64 = hex("07 06 676574496e74  0d 01  07 03 6b6579 07 03 6e3634")
        #expect(try await messenger.deliver(onChannel: channel, message: get32) == hex("00 03 05000000"))
        // An int64 is not aligned (only float64 and typed lists are).
        #expect(try await messenger.deliver(onChannel: channel, message: get64) == hex("00 04 0500000000000000"))
        // getDouble {key: "n32"}: widened to a float64 5.0, aligned to 8 bytes in the envelope.
        let getDouble = hex("07 09 676574446f75626c65  0d 01  07 03 6b6579 07 03 6e3332")
        #expect(
            try await messenger.deliver(onChannel: channel, message: getDouble)
                == hex("00 06 000000000000 0000000000001440"))
        #expect(try await store.group("group.local").value(forKey: "n64") == .int64(5))
    }

    @Test func anUnknownMethodGetsANullReply() async throws {
        let (messenger, _) = try await registry(store: InMemoryAppGroupStore(), entitled: ["group.local"])
        // getStringList {key: "k"}: the Dart API's name, never the channel's
        let request = hex("07 0d 676574537472696e674c697374  0d 01  07 03 6b6579 07 01 6b")
        #expect(try await messenger.deliver(onChannel: channel, message: request) == nil)
        #expect(messenger.entries == [.handlerReply(channel: channel, reply: nil)])
    }
}

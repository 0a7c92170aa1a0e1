import ChannelBridgeChannels
import ChannelBridgeCodec
import ChannelBridgeMessenger
import ChannelBridgePlugins
import ChannelBridgeTestSupport
import ChannelBridgeTesting
import Testing

/// A registry serving its catalog on `channelbridge/reflection` (`serveReflection`), and a failed
/// registration taking back the catalog entries it added.
@Suite struct RegistryReflectionTests {
    /// Sets up a channel of its own, an event channel, and a description of a channel another
    /// plugin listed first, then fails.
    enum HalfwayPlugin: Plugin {
        static func register(with registrar: PluginRegistrar) throws {
            registrar.addMethodCallDelegate(
                MethodRouter { router in router.on("a") { "a" } },
                channel: MethodChannel(name: "test/halfway", messenger: registrar.messenger))
            registrar.addStreamHandler(
                ChannelCatalogTests.Silent(),
                channel: EventChannel(name: "test/halfway/events", messenger: registrar.messenger))
            registrar.describe(
                ChannelDescription(
                    name: "test/shared", kind: .message, codec: "binary",
                    methods: [MethodDescription(name: "overwritten")], summary: "Halfway's"))
            registrar.describe(
                ChannelDescription(name: "test/shared", kind: .method, codec: "json", summary: "Halfway's again"))
            throw Refusal()
        }
    }

    static let shared = ChannelDescription(
        name: "test/shared", kind: .method, codec: "standard",
        methods: [MethodDescription(name: "m")], summary: "First's")

    @Test func aFailedRegistrationTakesBackTheCatalogEntriesItAdded() async throws {
        let (_, host) = InMemoryMessenger.makePair()
        let registry = PluginRegistry(messenger: host)
        try registry.registrar(forPlugin: "First").describe(Self.shared)
        let error = try await #require(throws: PluginError.self) { try await registry.register(HalfwayPlugin.self) }
        #expect(error.code == .registrationFailed)
        #expect(registry.channels.channels == [Self.shared])
    }

    /// The host's path: a registration that cannot wait for its hooks.
    @Test func aFailedRegistrationWithoutWaitingTakesThemBackToo() throws {
        let (_, host) = InMemoryMessenger.makePair()
        let registry = PluginRegistry(messenger: host)
        try registry.registrar(forPlugin: "First").describe(Self.shared)
        let error = try #require(throws: PluginError.self) { try registry.registerWithoutWaiting(HalfwayPlugin.self) }
        #expect(error.code == .registrationFailed)
        #expect(registry.channels.channels == [Self.shared])
    }

    enum KeptRegistrarKey: PluginEnvironmentKey {
        static let defaultValue: Locked<PluginRegistrar?>? = nil
    }

    /// Keeps its registrar (in the environment's box), then fails.
    enum KeeperPlugin: Plugin {
        static func register(with registrar: PluginRegistrar) throws {
            registrar.environment[KeptRegistrarKey.self]?.set(registrar)
            throw Refusal()
        }
    }

    /// A registrar kept past its failed registration installs nothing, and lists nothing either.
    @Test func aRegistrarWhosePluginFailedListsNothingLater() async throws {
        let (client, host) = InMemoryMessenger.makePair()
        defer { client.close() }
        let kept = Locked<PluginRegistrar?>(nil)
        // The box is in the registry's environment and holds the registrar, which refers to the
        // registry: emptied at the end, so that the cycle ends with the test.
        defer { kept.set(nil) }
        let registry = PluginRegistry(
            messenger: host, environment: PluginEnvironment().setting(KeptRegistrarKey.self, to: kept))
        _ = try await #require(throws: PluginError.self) { try await registry.register(KeeperPlugin.self) }
        let registrar = try #require(kept.value)
        registrar.describe(ChannelDescription(name: "test/late", kind: .method, codec: "standard"))
        registrar.addStreamHandler(
            ChannelCatalogTests.Silent(), channel: EventChannel(name: "test/late/events", messenger: host))
        #expect(registry.channels.channels == [])
    }

    @Test func serveReflectionListsThePluginsChannelsUntilTearDown() async throws {
        let (client, host) = InMemoryMessenger.makePair()
        defer { client.close() }
        let registry = PluginRegistry(messenger: host)
        registry.serveReflection()
        // Registered after reflection is served: each call reads the catalog as it is then.
        try await registry.register(AlphaPlugin.self)
        let reflection = MethodChannel(name: ChannelCatalog.reflectionChannel, messenger: client)
        try await withHangGuard { () async throws in
            let reply = try await reflection.invokeMethod("listChannels")
            #expect(
                reply.listValue?.compactMap(ChannelDescription.init) == [
                    ChannelCatalog.reflectionDescription,
                    ChannelDescription(name: AlphaPlugin.channelName, kind: .method, codec: "standard"),
                ])
            await registry.tearDown()
            let error = try await #require(throws: ChannelError.self) {
                try await reflection.invokeMethod("listChannels")
            }
            #expect(error.code == .notImplemented)
            #expect(error.channel == ChannelCatalog.reflectionChannel)
        }
    }

    @Test func aTornDownRegistryServesNoReflection() async throws {
        let (client, host) = InMemoryMessenger.makePair()
        defer { client.close() }
        let registry = PluginRegistry(messenger: host)
        await registry.tearDown()
        registry.serveReflection()
        let reflection = MethodChannel(name: ChannelCatalog.reflectionChannel, messenger: client)
        try await withHangGuard { () async throws in
            let error = try await #require(throws: ChannelError.self) {
                try await reflection.invokeMethod("listChannels")
            }
            #expect(error.code == .notImplemented)
        }
    }
}

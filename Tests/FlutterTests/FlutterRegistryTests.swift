import ChannelBridgeChannels
import ChannelBridgeCodec
import ChannelBridgePlugins
import ChannelBridgeTestSupport
import ChannelBridgeTesting
import Flutter
import Foundation
import Testing
import ChannelBridgeMessenger

/// A plugin in the iOS style.
final class CounterPlugin: NSObject, FlutterPlugin, @unchecked Sendable {
    // @unchecked: `count` is only touched on the engine's platform executor.
    static let channelName = "test/counter"
    let detached = Inbox<String>()
    private var count = 0

    static func register(with registrar: any FlutterPluginRegistrar) {
        let plugin = CounterPlugin()
        registrar.addMethodCallDelegate(
            plugin, channel: FlutterMethodChannel(name: channelName, binaryMessenger: registrar.messenger()))
        registrar.publish(plugin)
    }

    func handle(_ call: FlutterMethodCall, result: @escaping FlutterResult) {
        switch call.method {
        case "increment":
            count += 1
            result(count)
        default:
            result(FlutterMethodNotImplemented)
        }
    }

    func detachFromEngine(for registrar: any FlutterPluginRegistrar) {
        detached.put("detached")
    }
}

/// A plugin that adds itself as a delegate without a `handle`.
final class SilentPlugin: NSObject, FlutterPlugin {
    static func register(with registrar: any FlutterPluginRegistrar) {
        registrar.addMethodCallDelegate(
            SilentPlugin(), channel: FlutterMethodChannel(name: "test/silent", binaryMessenger: registrar.messenger()))
    }
}

/// A native plugin, for the mixed registry.
struct NativeEcho: Plugin {
    static func register(with registrar: PluginRegistrar) throws {
        registrar.publish("native value")
    }
}

/// The engine as a `FlutterPluginRegistry`: the same keys and publications as the native
/// registry it registers in.
@Suite struct FlutterRegistryTests {
    init() { LogCapture.start() }

    @Test func registrarHasPluginAndValuePublishedAgreeWithTheNativeRegistry() async throws {
        let session = EngineSession()
        defer { session.close() }
        let engine = session.engine, native = session.registry
        #expect(!engine.hasPlugin("CounterPlugin"))
        #expect(engine.valuePublished(byPlugin: "CounterPlugin") == nil)

        let registrar = try #require(engine.registrar(forPlugin: "CounterPlugin"))
        #expect(engine.hasPlugin("CounterPlugin") && native.hasPlugin("CounterPlugin"))
        #expect(engine.valuePublished(byPlugin: "CounterPlugin") is NSNull, "registered, nothing published")
        guard case .nothing? = native.valuePublished(byPlugin: "CounterPlugin") else {
            Issue.record("the native registry should see the key with nothing published")
            return
        }

        CounterPlugin.register(with: registrar)
        let published = try #require(engine.valuePublished(byPlugin: "CounterPlugin"))
        #expect(published is CounterPlugin)
        #expect(
            native.valuePublished(byPlugin: "CounterPlugin")?.value(as: FlutterPublishedObject.self)?.object
                === published)

        // A native plugin's key is a key like any other.
        try await native.register(NativeEcho.self)
        #expect(engine.hasPlugin("NativeEcho"))
        #expect(
            (engine.valuePublished(byPlugin: "NativeEcho") as? FlutterNativePublication)?.value as? String
                == "native value")
        #expect(native.pluginKeys == ["CounterPlugin", "NativeEcho"])
    }

    @Test func aDuplicateKeyGivesNoRegistrarAndLogsFlutterAssertion() throws {
        let session = EngineSession()
        defer { session.close() }
        let key = "Duplicate\(UUID().uuidString.prefix(6))"
        _ = try #require(session.engine.registrar(forPlugin: key))
        #expect(session.engine.registrar(forPlugin: key) == nil)
        #expect(LogCapture.lines(mentioning: key) == ["error: Duplicate plugin key: \(key)"])
        #expect(throws: PluginError.self) { try session.registry.registrar(forPlugin: key) }
    }

    @Test func afterTheRegistryIsTornDownNoRegistrarIsGiven() async throws {
        let session = EngineSession()
        defer { session.close() }
        await session.registry.tearDown()
        #expect(session.engine.registrar(forPlugin: "Late") == nil)
        #expect(!session.engine.hasPlugin("Late"))
    }

    @Test func aDelegatesCallsArriveAndAPublishedPluginIsDetachedAtTeardown() async throws {
        let session = EngineSession()
        CounterPlugin.register(with: try #require(session.engine.registrar(forPlugin: "CounterPlugin")))
        SilentPlugin.register(with: try #require(session.engine.registrar(forPlugin: "SilentPlugin")))
        let plugin = try #require(session.engine.valuePublished(byPlugin: "CounterPlugin") as? CounterPlugin)
        try await withHangGuard {
            let counter = MethodChannel(name: CounterPlugin.channelName, messenger: session.client)
            let first = try await counter.invokeMethod("increment")
            let second = try await counter.invokeMethod("increment")
            #expect([first, second] == [.int64(1), .int64(2)])
            await #expect(throws: ChannelError.self) { try await counter.invokeMethod("reset") }
            await #expect(throws: ChannelError.self) {
                try await MethodChannel(name: "test/silent", messenger: session.client).invokeMethod("anything")
            }
            session.close()
            #expect(await plugin.detached.next() == "detached")
        }
    }

    @Test func flutterPluginsRegisteredByNameShareTheSessionsEngine() async throws {
        let (client, host) = InMemoryMessenger.makePair()
        defer { client.close() }
        var catalogue = PluginCatalogue()
        try catalogue.addFlutterPlugins([CounterPlugin.self])
        try catalogue.add(NativeEcho.self)
        #expect(catalogue.keys == ["CounterPlugin", "NativeEcho"])
        // As a host does per session: a registry, and the plugins registered in it by name.
        let registry = PluginRegistry(messenger: host)
        try await PluginRegistrant(catalogue: catalogue).register(with: registry)
        let engine = FlutterEngine.engine(for: registry)
        #expect(engine === FlutterEngine.engine(for: registry))
        #expect(engine.hasPlugin("CounterPlugin") && engine.hasPlugin("NativeEcho"))
        #expect(engine.valuePublished(byPlugin: "CounterPlugin") is CounterPlugin)
        try await withHangGuard {
            let reply = try await MethodChannel(name: CounterPlugin.channelName, messenger: client).invokeMethod(
                "increment")
            #expect(reply == .int64(1))
        }
    }
}

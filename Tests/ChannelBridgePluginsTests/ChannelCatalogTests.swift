import ChannelBridgeChannels
import ChannelBridgeCodec
import ChannelBridgePlugins
import ChannelBridgeTesting
import Testing

/// A registry's channel catalog: what registrars list on their own, what a plugin adds with
/// `describe`, and the reflection reply built from it.
@Suite struct ChannelCatalogTests {
    struct Silent: StreamHandler {
        func onListen(arguments: StandardValue, events: EventSink) async throws {}
        func onCancel(arguments: StandardValue) async throws {}
    }

    @Test func registrarsListTheirChannelsAndDescribeAddsWhatTheyCannotKnow() throws {
        let (_, host) = InMemoryMessenger.makePair()
        let registry = PluginRegistry(messenger: host)
        let registrar = try registry.registrar(forPlugin: "Example")
        // Described before the handler is installed: installing keeps the description's methods.
        registrar.describe(
            ChannelDescription(
                name: "example/router", kind: .method, codec: "standard",
                methods: [MethodDescription(name: "a", summary: "-> \"a\"")], summary: "Routes"))
        registrar.addMethodCallDelegate(
            MethodRouter { router in
                router.on("b") { "b" }
                router.on("a") { "a" }
            }, channel: MethodChannel(name: "example/router", messenger: host))
        registrar.addMethodCallDelegate(
            MethodRouter { router in
                router.on("b") { "b" }
                router.on("a") { "a" }
            }, channel: MethodChannel(name: "example/plain", messenger: host))
        registrar.addMethodCallDelegate(
            MethodRouter(),
            channel: MethodChannel(
                name: "example/json", messenger: host,
                codec: JSONMethodCodec()))
        registrar.addStreamHandler(Silent(), channel: EventChannel(name: "example/events", messenger: host))

        #expect(
            registry.channels.channels == [
                ChannelDescription(name: "example/events", kind: .event, codec: "standard"),
                ChannelDescription(name: "example/json", kind: .method, codec: "json", methods: []),
                ChannelDescription(
                    name: "example/plain", kind: .method, codec: "standard",
                    methods: [MethodDescription(name: "a"), MethodDescription(name: "b")]),
                ChannelDescription(
                    name: "example/router", kind: .method, codec: "standard",
                    methods: [MethodDescription(name: "a", summary: "-> \"a\"")], summary: "Routes"),
            ])
    }

    @Test func theReflectionReplyRoundTripsAndOtherMethodsAreNotImplemented() throws {
        let catalog = ChannelCatalog()
        let described = ChannelDescription(
            name: "x", kind: .message, codec: "binary",
            methods: [MethodDescription(name: "m", summary: "does m")], summary: "X")
        catalog.add(described)
        let reply = try catalog.answerReflection(MethodCall("listChannels"))
        #expect(
            reply == [
                [
                    "name": "x", "kind": "message", "codec": "binary",
                    "methods": [["name": "m", "description": "does m"]], "description": "X",
                ]
            ])
        #expect(reply.listValue?.compactMap(ChannelDescription.init) == [described])
        #expect(throws: MethodNotImplemented.self) { try catalog.answerReflection(MethodCall("listChannel")) }
    }
}

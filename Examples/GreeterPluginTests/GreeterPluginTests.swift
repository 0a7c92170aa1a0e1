// How to test a plugin of your own without a socket or a second process: register it on one end
// of an in-memory messenger pair and call it from the other end through a MethodChannel, exactly
// as a client would over a socket.

import ChannelBridgeChannels
import ChannelBridgeCodec
import ChannelBridgePlugins
import ChannelBridgeTesting
import GreeterPlugin
import Testing

@Suite struct GreeterPluginTests {
    /// A registry with the plugin registered by name, and a channel to call it with.
    func makeGreeter() async throws -> (MethodChannel, PluginRegistry) {
        let (client, host) = InMemoryMessenger.makePair()
        let registry = PluginRegistry(messenger: host)
        try await PluginRegistrant(catalogue: try PluginCatalogue([GreeterPlugin.self]))
            .register(["GreeterPlugin"], with: registry)
        return (MethodChannel(name: GreeterPlugin.channelName, messenger: client), registry)
    }

    @Test func greetsByName() async throws {
        let (greeter, registry) = try await makeGreeter()
        #expect(try await greeter.invokeMethod("greet", arguments: ["name": "Ada"]) == "Hello, Ada!")
        #expect(try await greeter.invokeMethod("greetings") == 1)
        #expect(registry.hasPlugin("GreeterPlugin"))
        #expect(registry.valuePublished(byPlugin: "GreeterPlugin")?.value(as: String.self) == "greets on example/greeter")
    }

    @Test func refusesAMissingName() async throws {
        let (greeter, _) = try await makeGreeter()
        await #expect(throws: MethodError(code: "INVALID_ARGUMENTS", message: "greet needs a non-empty string 'name'",
                                          details: ["nom": "Ada"])) {
            try await greeter.invokeMethod("greet", arguments: ["nom": "Ada"])
        }
    }

    @Test func unknownMethodsAreNotImplemented() async throws {
        let (greeter, _) = try await makeGreeter()
        do {
            _ = try await greeter.invokeMethod("wave")
            Issue.record("wave should not be implemented")
        } catch let error as ChannelError {
            #expect(error.code == .notImplemented)
            #expect(error.method == "wave")
            #expect(error.channel == "example/greeter")
        }
    }
}

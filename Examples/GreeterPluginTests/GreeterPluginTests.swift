// How to test a plugin of your own without a socket or a second process: register it on one end
// of an in-memory messenger pair and call it from the other end through a MethodChannel, exactly
// as a client would over a socket.

import ChannelBridge
import ChannelBridgeTesting
import GreeterPlugin
import Testing

@Suite struct GreeterPluginTests {
    /// A registry with the plugin registered by name, a channel to call it with, and the client's
    /// end of the pair to close when done (closing ends both ends, which lets the plugin's
    /// handlers, the registry and the channels go).
    func makeGreeter() async throws -> (MethodChannel, PluginRegistry, MessengerConnection) {
        let (client, host) = InMemoryMessenger.makePair()
        let registry = PluginRegistry(messenger: host)
        try await PluginRegistrant(catalogue: try PluginCatalogue([GreeterPlugin.self]))
            .register(["GreeterPlugin"], with: registry)
        return (MethodChannel(name: GreeterPlugin.channelName, messenger: client), registry, client)
    }

    @Test func greetsByName() async throws {
        let (greeter, registry, client) = try await makeGreeter()
        defer { client.close() }
        // From Swift, typed; from Dart (or untyped Swift), a map with a "name".
        #expect(
            try await greeter.invokeMethod("greet", arguments: Greeting(name: "Ada"), as: String.self) == "Hello, Ada!")
        #expect(try await greeter.invokeMethod("greet", arguments: ["name": "Grace"]) == "Hello, Grace!")
        #expect(try await greeter.invokeMethod("greetings", as: Int.self) == 2)
        #expect(registry.hasPlugin("GreeterPlugin"))
        #expect(
            registry.valuePublished(byPlugin: "GreeterPlugin")?.value(as: String.self) == "greets on example/greeter")
    }

    @Test func refusesArgumentsThatAreNotAGreeting() async throws {
        let (greeter, _, client) = try await makeGreeter()
        defer { client.close() }
        // Decoding fails before `greet` runs; the message names the field.
        await #expect(throws: MethodError(code: "INVALID_ARGUMENTS", message: "`name`: missing")) {
            try await greeter.invokeMethod("greet", arguments: ["nom": "Ada"])
        }
        await #expect(
            throws: MethodError(code: "INVALID_ARGUMENTS", message: "`name`: expected a String, found int32 3")
        ) {
            try await greeter.invokeMethod("greet", arguments: ["name": 3])
        }
        await #expect(throws: MethodError(code: "INVALID_ARGUMENTS", message: "expected a Map, found String \"Ada\"")) {
            try await greeter.invokeMethod("greet", arguments: "Ada")
        }
        // `greet` itself refuses an empty name.
        await #expect(throws: MethodError(code: "INVALID_ARGUMENTS", message: "greet needs a non-empty name")) {
            try await greeter.invokeMethod("greet", arguments: Greeting(name: ""), as: String.self)
        }
        #expect(try await greeter.invokeMethod("greetings", as: Int.self) == 0)
    }

    @Test func unknownMethodsAreNotImplemented() async throws {
        let (greeter, _, client) = try await makeGreeter()
        defer { client.close() }
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

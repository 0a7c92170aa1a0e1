// A custom plugin registered by name on every session of a host, and called over a real Unix
// socket from a client.
//
//   custom-plugin-example NAME

import ChannelBridgeChannels
import ChannelBridgeCodec
import ChannelBridgePlugins
import ChannelBridgeSocket
import Foundation
import GreeterPlugin

let name = CommandLine.arguments.dropFirst().first ?? "world"
let path = "/tmp/cb-greeter-\(getpid()).sock"

// What the host knows how to register, by key; a registrant registers a list of keys.
let catalogue = try PluginCatalogue([GreeterPlugin.self])

// The host: each session (connection) is one engine with its own registry, as in Flutter.
let listener = try SocketListener(path: path) { session in
    let registry = PluginRegistry(messenger: session.messenger)
    do {
        // Registered by name, as `registrar(forPlugin: "GreeterPlugin")` in a generated registrant.
        let key = "GreeterPlugin"
        try catalogue.plugin(named: key).register(with: try registry.registrar(forPlugin: key))
    } catch {
        FileHandle.standardError.write(Data("registration failed: \(error)\n".utf8))
    }
}

// A client process would do exactly this.
let connection = try await SocketConnection.connect(to: path)
let greeter = MethodChannel(name: GreeterPlugin.channelName, messenger: connection.messenger)
print(try await greeter.invokeMethod("greet", arguments: Greeting(name: name), as: String.self))
print("greetings so far: \(try await greeter.invokeMethod("greetings", as: Int.self))")
do {
    _ = try await greeter.invokeMethod("wave")
} catch {
    print(error)
}
connection.close()
listener.close()

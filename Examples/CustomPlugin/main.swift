// A custom plugin registered by name on every session of a host, and called over a real Unix
// socket from a client.
//
//   custom-plugin-example NAME
//
// The socket lives in a private scratch directory (under $TMPDIR, else /tmp) that is removed at
// the end, with the listener's lock file: nothing is left behind.

import ChannelBridge
import Foundation
import GreeterPlugin

/// A fresh directory only this user can enter (mkdtemp), for the socket.
func makeScratchDirectory() -> String {
    var template = Array((NSTemporaryDirectory() + "cb-greeter-XXXXXX").utf8CString)
    guard mkdtemp(&template) != nil else { fatalError("mkdtemp: errno \(errno)") }
    return template.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
}

func run(name: String, socket path: String) async throws {
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
        // Lists the session's channels on channelbridge/reflection, for `channelbridge list`.
        registry.serveReflection()
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
    // What the session serves, read as `channelbridge list` reads it.
    let reflection = MethodChannel(name: ChannelCatalog.reflectionChannel, messenger: connection.messenger)
    if case .list(let listed) = try await reflection.invokeMethod("listChannels") {
        for channel in listed.compactMap(ChannelDescription.init) {
            print(
                "listed: \(channel.name) (\(channel.kind.rawValue) channel): "
                    + (channel.methods ?? []).map(\.name).joined(separator: ", "))
        }
    }
    connection.close()
    listener.close()
    // Closing returns at once; the socket file is gone only when the accepting thread has ended.
    await listener.waitUntilClosed()
}

let arguments = Array(CommandLine.arguments.dropFirst())
if arguments.first == "--help" || arguments.first == "-h" {
    print(
        """
        usage: custom-plugin-example [NAME]

        Registers the example greeter plugin by name on each session of a socket in a scratch
        directory, then calls it over the socket: greets NAME (default world), calls a method
        the plugin does not implement, and lists the session's channels (reflection).
        """)
    exit(0)
}
if let option = arguments.first(where: { $0.hasPrefix("-") }) {
    FileHandle.standardError.write(
        Data("custom-plugin-example: unknown option \(option); run 'custom-plugin-example --help'\n".utf8))
    exit(64)
}
let name = arguments.first ?? "world"
let directory = makeScratchDirectory()
var status: Int32 = 0
do {
    try await run(name: name, socket: directory + "/greeter.sock")
} catch {
    FileHandle.standardError.write(Data("custom-plugin-example: \(error)\n".utf8))
    status = 1
}
try? FileManager.default.removeItem(atPath: directory)
exit(status)

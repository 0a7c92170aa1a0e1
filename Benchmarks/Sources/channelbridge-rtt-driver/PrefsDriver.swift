import ChannelBridge
import ChannelBridgeBench
import ChannelBridgeHost
@_spi(Benchmarks) import ChannelBridgeMessenger
@_spi(Benchmarks) import ChannelBridgeSocket

/// The call the extension host answers itself, for `Scripts/count-instructions --host`: a real
/// `ExtensionHost` (its listener, session setup and plugins, as `extension-host` runs them)
/// answering `getInt` on `shared_preference_app_group` for a key it has cached, called as the rtt
/// client calls `echo` (one call at a time, on the connection's reader thread).
enum PrefsDriver {
    static let channel = "shared_preference_app_group"
    static let group = "group.channelbridge.count"
    static let key = "warm"
    static let value: StandardValue = .int32(42)

    /// Starts a host on `path` with its store in `dataDirectory` (its group holding `keys` keys
    /// as `channelbridge-bench prefs` writes them, when given), prints `ready <path>` (the host's
    /// own ready line), and serves until stdin ends; the host is then interrupted and shuts down
    /// as on SIGTERM.
    static func serve(path: String, dataDirectory: String, keys: Int?) async throws {
        if let keys { _ = try PrefsBenchmark.populate(dataDirectory: dataDirectory, group: group, keys: keys) }
        let options = HostOptions(socketPath: path, dataDirectory: dataDirectory, appGroups: [group])
        let host: ExtensionHost
        do {
            host = try await ExtensionHost.start(options: options)
        } catch {
            throw BenchError("the host did not start: \(error)")
        }
        async let record = host.run()
        _ = try? await ChildProcess.onThread("serve-host stdin") { BenchSystem.waitForEndOfStandardInput() }
        host.interrupt(.sigterm)
        _ = await record
    }

    /// Sets the key once, then makes `count` `getInt` calls on it one after another (each reply
    /// checked), and closes the connection. With `keys`, makes `count` `getString` calls instead,
    /// on the keys `channelbridge-bench prefs` reads in a group of that many
    /// (`PrefsBenchmark.getKey`).
    static func call(path: String, count: Int, keys: Int?) async throws {
        if let keys { return try await callStrided(path: path, count: count, keys: keys) }
        try await RttDriver.withConnection(to: path) { connection in
            let prefs = MethodChannel(name: channel, messenger: connection.messenger)
            let arguments: StandardValue = .map([.init("key", .string(key))])
            _ = try await prefs.invokeMethod(
                "setInt", arguments: .map([.init("key", .string(key)), .init("value", value)]))
            try await withTaskExecutorPreference(connection.executor) {
                try await connection.messenger.withCallScope {
                    for index in 0..<count {
                        let reply = try await prefs.invokeMethod("getInt", arguments: arguments)
                        guard reply == value else {
                            throw BenchError("call \(index + 1): getInt answered \(reply), not \(value)")
                        }
                    }
                }
            }
        }
    }

    /// `count` `getString` calls striding through a group of `keys` keys, each reply checked
    /// against the value `PrefsBenchmark.populate` wrote.
    static func callStrided(path: String, count: Int, keys: Int) async throws {
        try await RttDriver.withConnection(to: path) { connection in
            let prefs = MethodChannel(name: channel, messenger: connection.messenger)
            try await withTaskExecutorPreference(connection.executor) {
                try await connection.messenger.withCallScope {
                    for index in 0..<count {
                        let key = PrefsBenchmark.getKey(index, size: keys)
                        let reply = try await prefs.invokeMethod("getString", arguments: ["key": .string(key)])
                        let expected = StandardValue.string(PrefsBenchmark.value(-Int(key.dropFirst())! - 1))
                        guard reply == expected else {
                            throw BenchError("call \(index + 1): getString \(key) answered \(reply), not \(expected)")
                        }
                    }
                }
            }
        }
    }
}

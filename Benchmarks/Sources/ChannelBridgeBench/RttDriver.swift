import ChannelBridge
@_spi(Benchmarks) import ChannelBridgeMessenger
@_spi(Benchmarks) package import ChannelBridgeSocket

/// The `rtt` scenario without its stopwatch, for `channelbridge-rtt-driver`, the program
/// `Scripts/count-instructions` runs under `valgrind --tool=callgrind`. Both sides are
/// those of `channelbridge-bench rtt`: the server is `BenchServer` (MethodChannel `channelbridge/bench`, `echo`
/// answered by the synchronous handler on the reader thread), the client calls `echo` with
/// `RttBenchmark.argument` one call at a time, its calls running on the connection's reader
/// thread (`runsTasksOnReaderThread`, as `channelbridge-bench rtt` does unless `--pool-executor`). No clock is
/// read and no watchdog ticks, so what a call costs is the call.
package enum RttDriver {
    /// Serves the benchmark's channels on `path`, prints `ready <path>`, and returns once stdin ends.
    package static func serve(path: String) async throws {
        try await BenchServer.serve(path: path)
    }

    /// Connects to a server at `path`, makes `count` `echo` calls one after another (each reply
    /// checked), and closes the connection.
    package static func call(path: String, count: Int) async throws {
        try await withConnection(to: path) { connection in
            let channel = MethodChannel(name: BenchServer.methodChannel, messenger: connection.messenger)
            // One cancellation handler for all the calls (`withCallScope`), as `channelbridge-bench rtt` does.
            try await withTaskExecutorPreference(connection.executor) {
                try await connection.messenger.withCallScope {
                    for index in 0..<count {
                        let reply = try await channel.invokeMethod("echo", arguments: RttBenchmark.argument)
                        guard reply == RttBenchmark.argument else {
                            throw BenchError("call \(index + 1): echo answered \(reply), not \(RttBenchmark.argument)")
                        }
                    }
                }
            }
        }
    }

    /// Connects to `path` with the connection's reader thread running its tasks (as `channelbridge-bench rtt`
    /// does), exchanges a PING and takes the peer's HELLO, runs `body`, and closes the connection, whether `body`
    /// returns or throws.
    package static func withConnection(
        to path: String, _ body: (SocketConnection) async throws -> Void
    ) async throws {
        var options = SocketConnection.Options()
        options.runsTasksOnReaderThread = true
        let connection = try await SocketConnection.connect(to: path, options: options)
        do {
            // A PING's PONG comes after the peer's HELLO, so the HELLO is here before it is waited
            // for, in every run: whether `waitForPeerHello` found it or had to wait for it (a
            // race under valgrind, about 400,000 instructions the first time a process waits)
            // would otherwise differ between the runs `Scripts/count-instructions` subtracts.
            try await connection.messenger.ping()
            _ = try await connection.messenger.waitForPeerHello()
            try await body(connection)
        } catch {
            connection.close()
            await connection.waitUntilClosed()
            throw error
        }
        connection.close()
        await connection.waitUntilClosed()
    }
}

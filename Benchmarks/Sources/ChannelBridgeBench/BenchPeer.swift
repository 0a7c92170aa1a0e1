import ChannelBridge
@_spi(Benchmarks) import ChannelBridgeMessenger
@_spi(Benchmarks) import ChannelBridgeSocket
import Foundation
import Synchronization

/// `channelbridge-bench serve` started as a separate process, and this process's connection to it.
package struct BenchPeer {
    let child: ChildProcess
    let connection: SocketConnection
    let directory: String

    private static let counter = Atomic<Int>(0)

    /// A fresh directory for one socket, short enough for `sun_path`; the listener creates it.
    /// Under `$TMPDIR` when that is a short absolute path (else `/tmp`), like the C durable-write
    /// floor, so `prefs` writes its group on the same file system as its baseline.
    package static func socketDirectory(_ purpose: String) -> String {
        let number = counter.wrappingAdd(1, ordering: .relaxed).newValue
        var base = "/tmp"
        if let tmp = ProcessInfo.processInfo.environment["TMPDIR"], tmp.hasPrefix("/"), tmp.utf8.count <= 40 {
            base = tmp.hasSuffix("/") && tmp.count > 1 ? String(tmp.dropLast()) : tmp
        }
        return "\(base)/channelbridge-bench-\(BenchSystem.processID)-\(purpose)-\(number)"
    }

    static func start(readerExecutor: Bool = false) async throws -> BenchPeer {
        let directory = socketDirectory("serve")
        let path = directory + "/bench.sock"
        let child = try ChildProcess(product: "channelbridge-bench", arguments: ["serve", "--socket", path])
        do {
            let line = try await child.readLine()
            guard line == "ready \(path)" else {
                throw BenchError("channelbridge-bench serve said '\(line)', not its ready line")
            }
            var options = SocketConnection.Options()
            options.runsTasksOnReaderThread = readerExecutor
            let connection = try await SocketConnection.connect(to: path, options: options)
            _ = try await connection.messenger.waitForPeerHello()
            return BenchPeer(child: child, connection: connection, directory: directory)
        } catch {
            child.closeInput()
            child.terminate()
            await child.waitForExit()
            try? FileManager.default.removeItem(atPath: directory)
            throw error
        }
    }

    /// Closes the connection and ends the server (its stdin ends).
    func stop() async throws {
        connection.close()
        await connection.waitUntilClosed()
        child.closeInput()
        _ = try await child.finish()
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// Runs `body` on the connection's reader thread (see `ReaderExecutor`) when it was started
    /// with `readerExecutor`, else on the global executor; its calls share one cancellation
    /// handler (`withCallScope`).
    func onReaderThread<T: Sendable>(_ body: () async throws -> T) async throws -> T {
        let messenger = connection.messenger
        return try await withTaskExecutorPreference(connection.executor) {
            try await messenger.withCallScope(body)
        }
    }

    /// Runs `body` with a started peer, stopping it afterwards whatever happens.
    static func with<T>(readerExecutor: Bool = false, _ body: (BenchPeer) async throws -> T) async throws -> T {
        let peer = try await start(readerExecutor: readerExecutor)
        do {
            let result = try await body(peer)
            try await peer.stop()
            return result
        } catch {
            try? await peer.stop()
            throw error
        }
    }
}

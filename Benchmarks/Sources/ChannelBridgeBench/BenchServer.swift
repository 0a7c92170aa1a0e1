import ChannelBridge
import Foundation

/// `BenchServer.serve(path:)`, behind `channelbridge-bench serve --socket PATH`: the other process of the socket scenarios. It
/// serves, over the real socket transport:
/// - MethodChannel `channelbridge/bench`: `echo` returns its argument (small values and bulk
///   `Uint8List`s alike);
/// - EventChannel `channelbridge/bench/events`: listen arguments `{"count": N, "size": S}` stream
///   N events, each a `Uint8List` of S bytes, then the end of the stream.
/// It prints `ready <path>` once it accepts connections and serves until its stdin ends.
package enum BenchServer {
    static let methodChannel = "channelbridge/bench"
    static let eventChannel = "channelbridge/bench/events"

    /// Serves on `path`, prints `ready <path>`, and returns once stdin ends.
    package static func serve(path: String) async throws {
        let listener = try SocketListener(path: path) { connection in
            install(on: connection)
        }
        BenchOutput.line("ready \(path)")
        BenchOutput.flush()
        _ = try? await ChildProcess.onThread("bench serve stdin") { BenchSystem.waitForEndOfStandardInput() }
        listener.close()
        await listener.waitUntilClosed()
    }

    static func install(on connection: SocketConnection) {
        let methods = MethodChannel(name: methodChannel, messenger: connection.messenger)
        // Echo answers at once: a synchronous handler runs on the reader thread, no task per call.
        methods.setSynchronousMethodCallHandler { call in
            guard call.method == "echo" else { throw MethodNotImplemented() }
            return call.arguments
        }
        let events = EventChannel(name: eventChannel, messenger: connection.messenger)
        events.setStreamHandler(EventProducer())
    }
}

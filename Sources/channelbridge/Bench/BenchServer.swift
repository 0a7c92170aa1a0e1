import ChannelBridgeChannels
import ChannelBridgeCodec
import ChannelBridgeSocket
import Foundation
import Glibc

/// `channelbridge bench serve --socket PATH` (hidden): the other process of the socket scenarios. It
/// serves, over the real socket transport:
/// - MethodChannel `channelbridge/bench`: `echo` returns its argument (small values and bulk
///   `Uint8List`s alike);
/// - EventChannel `channelbridge/bench/events`: listen arguments `{"count": N, "size": S}` stream
///   N events, each a `Uint8List` of S bytes, then the end of the stream.
/// It prints `ready <path>` once it accepts connections and serves until its stdin ends.
enum BenchServer {
    static let methodChannel = "channelbridge/bench"
    static let eventChannel = "channelbridge/bench/events"

    static let help = """
        usage: channelbridge bench serve --socket PATH

        Serves the benchmark's channels on PATH until stdin ends (used by 'channelbridge bench' itself).
        """

    static func run(_ arguments: [String]) async throws -> Int32 {
        let args = try Arguments(arguments, valued: ["socket"])
        if args.wantsHelp {
            Output.line(help)
            return ExitCode.success
        }
        guard let path = args.value("socket") else { throw UsageError("serve needs --socket PATH") }
        guard args.positionals.isEmpty else { throw UsageError("unexpected argument '\(args.positionals[0])'") }
        let listener = try SocketListener(path: path) { connection in
            install(on: connection)
        }
        Output.line("ready \(path)")
        Output.flush()
        _ = try? await ChildProcess.onThread("bench serve stdin") {
            var byte: UInt8 = 0
            while true {
                let count = read(STDIN_FILENO, &byte, 1)
                if count < 0 && errno == EINTR { continue }
                if count <= 0 { return }
            }
        }
        listener.close()
        await listener.waitUntilClosed()
        return ExitCode.success
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

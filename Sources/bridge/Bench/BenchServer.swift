import ChannelBridgeChannels
import ChannelBridgeCodec
import ChannelBridgeSocket
import Foundation
import Glibc
import Synchronization

/// `bridge bench serve --socket PATH` (hidden): the other process of the socket scenarios. It
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
        usage: bridge bench serve --socket PATH

        Serves the benchmark's channels on PATH until stdin ends (used by 'bridge bench' itself).
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
        methods.setMethodCallHandler { call in
            guard call.method == "echo" else { throw MethodNotImplemented() }
            return call.arguments
        }
        let events = EventChannel(name: eventChannel, messenger: connection.messenger)
        events.setStreamHandler(EventProducer())
    }
}

/// Streams `count` events of `size` bytes from a task of its own, as fast as the sink takes them.
final class EventProducer: StreamHandler {
    private let producer = Mutex<Task<Void, Never>?>(nil)

    func onListen(arguments: StandardValue, events: EventSink) async throws {
        guard let count = arguments["count"]?.intValue, let size = arguments["size"]?.intValue,
              count >= 0, size >= 0 else {
            throw MethodError(code: "INVALID_ARGUMENTS", message: "listen needs {\"count\": N, \"size\": S}")
        }
        let event = StandardValue.uint8List([UInt8](repeating: 0xA5, count: size))
        let task = Task {
            for index in 0..<count {
                // Checking takes a lock; a cancelled stream drops events anyway.
                if index & 1023 == 0, !events.isActive { return }
                events.success(event)
            }
            events.endOfStream()
        }
        producer.withLock { $0 = task }
    }

    func onCancel(arguments: StandardValue) async throws {
        producer.withLock { $0?.cancel() }
    }
}

import ChannelBridgeChannels
import ChannelBridgeCodec
import ChannelBridgeSocket
import ChannelBridgeTestSupport
import Foundation
import Glibc
import Testing

/// Support for the channel tests over real sockets with the peer in another process. Everything is
/// namespaced here so that it cannot collide with other test files of this target.
enum ChannelsOverSocket {
    struct PeerFailed: Error, CustomStringConvertible {
        let description: String
    }

    /// The `channelbridge-test-peer` executable as a child process.
    final class Peer: Sendable {
        let pid: Int32
        private let process: Process
        private let stdin: FileHandle
        private let exited: Inbox<Int32>

        private init(process: Process, stdin: FileHandle, exited: Inbox<Int32>) {
            self.process = process
            self.pid = process.processIdentifier
            self.stdin = stdin
            self.exited = exited
        }

        /// Starts `channelbridge-test-peer MODE PATH` and waits for its `ready` line.
        static func start(_ mode: String, path: String) async throws -> Peer {
            let process = Process()
            let executable = try ProcessRunner.locate(
                "channelbridge-test-peer", overriddenBy: "CHANNELBRIDGE_TEST_PEER")
            process.executableURL = URL(fileURLWithPath: executable)
            process.arguments = [mode, path]
            let input = try CloseOnExecPipe()
            let output = try CloseOnExecPipe()
            process.standardInput = input.fileHandleForReading
            process.standardOutput = output.fileHandleForWriting
            let exited = Inbox<Int32>()
            process.terminationHandler = { exited.put($0.terminationStatus) }
            try ProcessRunner.start(process)
            try input.fileHandleForReading.close()
            try output.fileHandleForWriting.close()
            let peer = Peer(process: process, stdin: input.fileHandleForWriting, exited: exited)
            let ready = Inbox<Bool>()
            // A blocking read, on its own thread rather than the concurrency pool.
            let reader = Thread {
                var text = ""
                while true {
                    let data = output.fileHandleForReading.availableData
                    if data.isEmpty {
                        ready.put(false)
                        return
                    }
                    text += String(decoding: data, as: UTF8.self)
                    if text.contains("ready\n") {
                        ready.put(true)
                        return
                    }
                }
            }
            reader.start()
            guard await ready.next() else {
                throw PeerFailed(description: "channelbridge-test-peer \(mode) \(path) ended before it was ready")
            }
            return peer
        }

        /// SIGKILL: the process ends at once, without closing anything itself.
        func kill() {
            _ = Glibc.kill(pid, SIGKILL)
        }

        /// Closes the peer's stdin, which makes it exit, and waits for that.
        func stop() async {
            try? stdin.close()
            _ = await exited.next()
        }

        /// Waits for the process to end and returns its termination status.
        func waitForExit() async -> Int32 {
            await exited.next()
        }
    }
}

extension ChannelsOverSocket {
    /// The owner side of `test/events` in this process: sends `count` int events, an error event
    /// `TEST_ERROR` before event 1, and the end of stream; reports every call.
    final class TestTicks: StreamHandler {
        enum Call: Sendable, Equatable {
            case listen(StandardValue)
            case cancel(StandardValue)
        }

        let calls = Inbox<Call>()

        func onListen(arguments: StandardValue, events: EventSink) async throws {
            calls.put(.listen(arguments))
            guard case .int32(let count) = arguments else {
                // Without a count: one event, then the stream stays open.
                events.success(.string("open"))
                return
            }
            for n in 0..<count {
                if n == 1 { events.error(MethodError(code: "TEST_ERROR", message: "one", details: .int32(n))) }
                events.success(.int32(n))
            }
            events.endOfStream()
        }

        func onCancel(arguments: StandardValue) async throws {
            calls.put(.cancel(arguments))
        }
    }

    /// The channels this process serves on a session with the peer: `test/methods` (`hello` →
    /// "hello, ARGS" from the test process, `fail` → `TEST_FAILED`) and the owner of `test/events`.
    static func serveTestChannels(on connection: SocketConnection, ticks: TestTicks) {
        MethodChannel(name: "test/methods", messenger: connection.messenger).setMethodCallHandler { call in
            switch call.method {
            case "hello":
                guard case .string(let name) = call.arguments else { throw MethodError(code: "BAD_ARGS") }
                return .string("hello, \(name), from the test process")
            case "fail":
                throw MethodError(code: "TEST_FAILED", message: "asked to fail")
            default:
                throw MethodNotImplemented()
            }
        }
        EventChannel(name: "test/events", messenger: connection.messenger).setStreamHandler(ticks)
    }

    /// A session where the peer process is the host and this process connects to it.
    struct ClientSession: Sendable {
        let peer: Peer
        let connection: SocketConnection
        let ticks: TestTicks
        let methods: MethodChannel
        let events: EventChannel
    }

    /// Starts a peer host, connects to it, runs `body`, then ends both.
    static func withPeerHost(
        options: SocketConnection.Options = .init(),
        configure: @escaping @Sendable (SocketConnection) -> Void = { _ in },
        _ body: @escaping @Sendable (ClientSession) async throws -> Void
    ) async throws {
        let directory = try TestDirectory()
        defer { directory.remove() }
        try await withHangGuard {
            let path = directory.path + "/peer.sock"
            let peer = try await Peer.start("listen", path: path)
            let ticks = TestTicks()
            let connection: SocketConnection
            do {
                connection = try await SocketConnection.connect(to: path, options: options) {
                    serveTestChannels(on: $0, ticks: ticks)
                    configure($0)
                }
            } catch {
                await peer.stop()
                throw error
            }
            let session = ClientSession(
                peer: peer, connection: connection, ticks: ticks,
                methods: MethodChannel(name: "peer/methods", messenger: connection.messenger),
                events: EventChannel(name: "peer/events", messenger: connection.messenger))
            let outcome: Result<Void, any Error>
            do { outcome = .success(try await body(session)) } catch { outcome = .failure(error) }
            connection.close()
            await connection.waitUntilClosed()
            await peer.stop()
            try outcome.get()
        }
    }

    /// Asks the peer for the `listen` / `cancel` calls its `peer/events` got, until `done` holds.
    /// The peer's log of `peer/events` calls once it holds `count` entries: the peer answers when
    /// the last of them arrives (no polling).
    static func peerEventLog(_ methods: MethodChannel, count: Int) async throws -> [StandardValue] {
        let log = try await methods.invokeMethod(
            "eventLog", arguments: .map([.init(.string("atLeast"), .int64(Int64(count)))]))
        guard case .list(let entries) = log else { return [] }
        return entries
    }

    static func logEntry(_ call: String, _ arguments: StandardValue) -> StandardValue {
        .list([.string(call), arguments])
    }

    static func map(_ pairs: [(String, StandardValue)]) -> StandardValue {
        .map(pairs.map { StandardValue.MapEntry(.string($0.0), $0.1) })
    }
}

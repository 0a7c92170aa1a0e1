import ChannelBridgeChannels
import ChannelBridgeCodec
import ChannelBridgeSocket
import Foundation
import Glibc
import Synchronization
import Testing

/// Support for the channel tests over real sockets with the peer in another process. Everything is
/// namespaced here so that it cannot collide with other test files of this target.
enum ChannelsOverSocket {
    struct HangGuardExpired: Error, CustomStringConvertible {
        let seconds: Int
        var description: String { "hang guard: no result within \(seconds) s" }
    }

    struct PeerFailed: Error, CustomStringConvertible {
        let description: String
    }

    /// Runs `body`, failing with `HangGuardExpired` if it has not finished in `seconds`. A guard
    /// against hangs only: nothing here asserts how fast anything is.
    @discardableResult
    static func withHangGuard<T: Sendable>(seconds: Int = 30,
                                           _ body: @escaping @Sendable () async throws -> T) async throws -> T {
        let race = Race<T>()
        return try await withCheckedThrowingContinuation { continuation in
            race.start(continuation, seconds: seconds, body)
        }
    }

    /// Whichever of the body and the timer ends first resumes the caller and cancels the other.
    private final class Race<T: Sendable>: Sendable {
        private struct State {
            var continuation: CheckedContinuation<T, any Error>?
            var work: Task<Void, Never>?
            var timer: Task<Void, Never>?
        }

        private let state = Mutex(State())

        func start(_ continuation: CheckedContinuation<T, any Error>, seconds: Int,
                   _ body: @escaping @Sendable () async throws -> T) {
            state.withLock { state in
                state.continuation = continuation
                state.work = Task {
                    let result: Result<T, any Error>
                    do { result = .success(try await body()) } catch { result = .failure(error) }
                    self.finish(result)
                }
                state.timer = Task {
                    try? await Task.sleep(for: .seconds(seconds))
                    guard !Task.isCancelled else { return }
                    self.finish(.failure(HangGuardExpired(seconds: seconds)))
                }
            }
        }

        private func finish(_ result: Result<T, any Error>) {
            let (continuation, work, timer) = state.withLock { state in
                defer { state.continuation = nil }
                return (state.continuation, state.work, state.timer)
            }
            guard let continuation else { return }
            work?.cancel()
            timer?.cancel()
            continuation.resume(with: result)
        }
    }

    /// Values pushed from handlers, taken in order by one reader.
    final class Inbox<Value: Sendable>: Sendable {
        private struct State {
            var values: [Value] = []
            var waiter: CheckedContinuation<Value, Never>?
        }

        private let state = Mutex(State())

        func put(_ value: Value) {
            let waiter = state.withLock { state -> CheckedContinuation<Value, Never>? in
                if let waiter = state.waiter {
                    state.waiter = nil
                    return waiter
                }
                state.values.append(value)
                return nil
            }
            waiter?.resume(returning: value)
        }

        func next() async -> Value {
            await withCheckedContinuation { continuation in
                let value = state.withLock { state -> Value? in
                    if !state.values.isEmpty { return state.values.removeFirst() }
                    state.waiter = continuation
                    return nil
                }
                if let value { continuation.resume(returning: value) }
            }
        }

        var waiting: [Value] { state.withLock { $0.values } }
    }

    /// A fresh directory for a socket file; short, because a Unix socket path has at most 107 bytes.
    static func makeSocketDirectory() throws -> String {
        let directory = "/tmp/cb-chan-\(getpid())-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: false,
                                                attributes: [.posixPermissions: 0o700])
        return directory
    }

    /// The `channelbridge-test-peer` executable as a child process.
    final class Peer: Sendable {
        /// Finds the peer beside the running test binary (SwiftPM puts every product of a build in
        /// one directory), or at `$CHANNELBRIDGE_TEST_PEER`.
        static func executablePath() throws -> String {
            if let path = ProcessInfo.processInfo.environment["CHANNELBRIDGE_TEST_PEER"] { return path }
            var candidates: [String] = []
            if let exe = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") {
                candidates.append(exe)
            }
            candidates.append(CommandLine.arguments[0])
            for candidate in candidates {
                var directory = URL(fileURLWithPath: candidate).deletingLastPathComponent()
                for _ in 0..<4 {
                    let peer = directory.appendingPathComponent("channelbridge-test-peer").path
                    if FileManager.default.isExecutableFile(atPath: peer) { return peer }
                    directory = directory.deletingLastPathComponent()
                }
            }
            throw PeerFailed(description: "channelbridge-test-peer not found near \(candidates); build it "
                + "(swift build --product channelbridge-test-peer) or set CHANNELBRIDGE_TEST_PEER")
        }

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
            process.executableURL = URL(fileURLWithPath: try executablePath())
            process.arguments = [mode, path]
            let input = Pipe()
            let output = Pipe()
            process.standardInput = input
            process.standardOutput = output
            let exited = Inbox<Int32>()
            process.terminationHandler = { exited.put($0.terminationStatus) }
            try process.run()
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
    static func withPeerHost(_ body: @escaping @Sendable (ClientSession) async throws -> Void) async throws {
        let directory = try makeSocketDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try await withHangGuard {
            let path = directory + "/peer.sock"
            let peer = try await Peer.start("listen", path: path)
            let ticks = TestTicks()
            let connection: SocketConnection
            do {
                connection = try await SocketConnection.connect(to: path) { serveTestChannels(on: $0, ticks: ticks) }
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
    static func peerEventLog(_ methods: MethodChannel,
                             until done: @Sendable ([StandardValue]) -> Bool) async throws -> [StandardValue] {
        while true {
            guard case .list(let log) = try await methods.invokeMethod("eventLog") else { return [] }
            if done(log) { return log }
            try await Task.sleep(for: .milliseconds(5))   // polling; nothing measures the time
        }
    }

    static func logEntry(_ call: String, _ arguments: StandardValue) -> StandardValue {
        .list([.string(call), arguments])
    }

    static func map(_ pairs: [(String, StandardValue)]) -> StandardValue {
        .map(pairs.map { StandardValue.MapEntry(.string($0.0), $0.1) })
    }
}

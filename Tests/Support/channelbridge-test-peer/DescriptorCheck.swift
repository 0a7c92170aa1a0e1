import ChannelBridgeChannels
import ChannelBridgeCodec
import ChannelBridgeMessenger
import ChannelBridgePlatform
@_spi(Benchmarks) import ChannelBridgeSocket
import ChannelBridgeTestSupport
import Foundation
import Glibc

/// `channelbridge-test-peer fd-check PATH`: the whole-process descriptor count before and after
/// rounds of sessions that end every way a session can end, measured in a process of its own (a
/// test process runs other suites at the same time, which open descriptors of their own).
/// Prints `fds BEFORE AFTER`.
enum DescriptorCheck {
    static func count() -> Int {
        ((try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []).count
    }

    /// The count once it has stopped changing for 200 ms (threads of an earlier round may still
    /// be closing their descriptors).
    static func settledCount() async throws -> Int {
        var last = count(), stable = 0
        while stable < 10 {
            try await Task.sleep(for: .milliseconds(20))
            let now = count()
            stable = now == last ? stable + 1 : 0
            last = now
        }
        return last
    }

    static func run(path: String, rounds: Int = 10) async throws {
        // Warm up once so lazily opened process-wide descriptors (e.g. /dev/urandom) are counted in both.
        try await round(path: path)
        let before = try await settledCount()
        for _ in 0..<rounds { try await round(path: path) }
        // Closing is asynchronous on the sessions' own threads; give them time to finish.
        var after = count()
        for _ in 0..<250 where after > before {
            try await Task.sleep(for: .milliseconds(20))
            after = count()
        }
        print("fds \(before) \(after)")
    }

    /// One listener, and sessions that: answer calls; close from the client; close from the host
    /// with a call pending; send a malformed frame; vanish without a GOODBYE.
    static func round(path: String) async throws {
        let hostSide = Sessions()
        // The host's handler says when a `hang` call has reached it.
        let (hanging, hangStarted) = AsyncStream<Void>.makeStream()
        let listener = try SocketListener(path: path) { connection in
            hostSide.withLock { $0.append(connection) }
            MethodChannel(name: "fd/echo", messenger: connection.messenger).setMethodCallHandler { call in
                if call.method == "hang" {
                    hangStarted.yield()
                    try await untilCancelled()
                }
                return call.arguments
            }
        }
        // A session that works and is closed by the client; its calls run on the reader thread.
        let onReader = SocketConnection.Options(runsTasksOnReaderThread: true)
        let normal = try await SocketConnection.connect(to: path, options: onReader)
        _ = try await withTaskExecutorPreference(normal.executor) {
            try await MethodChannel(name: "fd/echo", messenger: normal.messenger).invokeMethod("echo", arguments: 1)
        }
        normal.close()
        await normal.waitUntilClosed()

        // A session closed by the host while the client waits for a reply.
        let pending = try await SocketConnection.connect(to: path, options: onReader)
        let call = Task {
            try await withTaskExecutorPreference(pending.executor) {
                try await MethodChannel(name: "fd/echo", messenger: pending.messenger).invokeMethod("hang")
            }
        }
        for await _ in hanging { break }  // the call is in the handler of the second session
        hostSide.withLock { $0.last }?.messenger.close(code: .shuttingDown, waitForOwedReplies: false)
        _ = try? await call.value
        await pending.waitUntilClosed()

        // A raw client that sends a frame of an unknown kind, and one that disconnects silently.
        for bytes in [[UInt8]([1, 0, 0, 0, 0x7F]), []] {
            let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
            var address = sockaddr_un()
            address.sun_family = sa_family_t(AF_UNIX)
            withUnsafeMutableBytes(of: &address.sun_path) { raw in
                for (index, byte) in path.utf8.enumerated() { raw[index] = byte }
            }
            _ = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
                }
            }
            if !bytes.isEmpty { _ = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) } }
            var buffer = [UInt8](repeating: 0, count: 256)
            if !bytes.isEmpty { while read(fd, &buffer, buffer.count) > 0 {} }
            close(fd)
        }
        for connection in hostSide.withLock({ $0 }) {
            connection.close()
            await connection.waitUntilClosed()
        }
        listener.close()
        await listener.waitUntilClosed()
    }
}

/// The host side's sessions, shared between the listener's callback and the check.
final class Sessions: Sendable {
    private let state = LockedValue<[SocketConnection]>([])
    func withLock<T: Sendable>(_ body: (inout [SocketConnection]) -> T) -> T { state.withLock { body(&$0) } }
}

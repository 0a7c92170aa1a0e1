import ChannelBridgePlatform
import ChannelBridgeSocket
import ChannelBridgeTestSupport
import Testing

/// `SocketConnection.connect` against a host that never accepts: a listening socket whose backlog
/// is full, which is what a stopped or overloaded host looks like to a connecting process.
@Suite struct ConnectTimeoutTests {
    /// A listening socket at `path` with backlog 0 that never accepts, and the connections that
    /// fill its backlog, so that a further connect would wait for room that never comes.
    final class FullBacklog: Sendable {
        let listener: Int32
        let queued: [Int32]

        init(path: String) throws {
            let address = try #require(Syscalls.address(for: path))
            listener = Syscalls.newStreamSocket()
            try #require(listener >= 0)
            try #require(Syscalls.bind(listener, to: address) == 0)
            try #require(Syscalls.listen(listener, backlog: 0) == 0)
            var queued: [Int32] = []
            // Queue connections until a non-blocking connect finds no room (EAGAIN); a Linux
            // listener with backlog 0 takes one. The bound only stops a runaway loop.
            while queued.count < 1024 {
                let fd = Syscalls.newStreamSocket(nonBlocking: true)
                try #require(fd >= 0)
                let result = Syscalls.tryConnect(fd, to: address)
                if result != 0 {
                    Syscalls.closeDescriptor(fd)
                    try #require(result == Errno.EAGAIN)
                    break
                }
                queued.append(fd)
            }
            self.queued = queued
        }

        deinit {
            for fd in queued { Syscalls.closeDescriptor(fd) }
            Syscalls.closeDescriptor(listener)
        }
    }

    @Test func aConnectToAFullBacklogTimesOutWithTheUsersMessage() async throws {
        try await TestDirectory.withPath { path in
            let socket = path + "/h.sock"
            let backlog = try FullBacklog(path: socket)
            try await withHangGuard(seconds: 10) {
                var options = SocketConnection.Options()
                options.connectTimeout = .milliseconds(500)
                let error = await #expect(throws: SocketError.self) {
                    _ = try await SocketConnection.connect(to: socket, options: options)
                }
                #expect(error?.code == .timedOut)
                #expect(
                    error?.message
                        == "no answer from the host at \(socket) within 0.5 s: it may be stopped or overloaded")
                #expect(error?.path == socket)
            }
            withExtendedLifetime(backlog) {}
        }
    }

    @Test func theTimeoutIsAnOptionWithAFiveSecondDefault() {
        #expect(SocketConnection.Options().connectTimeout == .seconds(5))
        #expect(SocketConnection.Options.defaultConnectTimeout == .seconds(5))
        #expect(
            SocketError.timedOut(path: "/p", after: .seconds(5)).message
                == "no answer from the host at /p within 5 s: it may be stopped or overloaded")
    }
}

import ChannelBridgeMessenger
import ChannelBridgePlatform
import FoundationEssentials
import Glibc
import Synchronization

/// Accepts sessions on a Unix socket path: one `SocketConnection` per client.
///
/// ```swift
/// let listener = try SocketListener(path: SocketPath.defaultPath()) { connection in
///     connection.messenger.setMessageHandler(onChannel: "channelbridge/echo") { $0 }
/// }
/// // ...
/// listener.close()
/// await listener.waitUntilClosed()
/// ```
///
/// The socket file is created with mode 0600 (a parent directory the listener creates gets
/// 0700); a stale file is replaced, a live socket is never taken over (`SocketError.addressInUse`).
/// Each accepted peer's credentials are checked against `acceptPeer` before anything is read; a
/// refused peer gets GOODBYE `forbidden` as its first and only frame. Accepting runs on a
/// dedicated thread, never on the Swift concurrency pool.
public final class SocketListener: Sendable {
    /// Settings for the listener and the sessions it accepts.
    public struct Options: Sendable {
        /// Settings for each accepted session, including the peer policy `acceptPeer`.
        public var connection: SocketConnection.Options
        /// The `listen` backlog.
        public var backlog: Int32
        /// Told about each refused peer (for logs); runs on the accepting thread.
        public var onRefusedPeer: (@Sendable (PeerCredentials) -> Void)?

        public init(connection: SocketConnection.Options = SocketConnection.Options(), backlog: Int32 = 128,
                    onRefusedPeer: (@Sendable (PeerCredentials) -> Void)? = nil) {
            self.connection = connection
            self.backlog = backlog
            self.onRefusedPeer = onRefusedPeer
        }
    }

    private struct State {
        var closing = false
        var closed = false
        var waiters: [CheckedContinuation<Void, Never>] = []
    }

    /// The socket path being served.
    public let path: String
    public let options: Options
    private let socket: ListeningSocket
    private let state = Mutex(State())

    /// Binds `path` and starts accepting. `onConnection` runs on the accepting thread for each
    /// accepted session before anything is read from it (its HELLO has gone out): install handlers
    /// there, and return quickly (the next client waits meanwhile).
    public init(path: String = SocketPath.defaultPath(), options: Options = Options(),
                onConnection: @escaping @Sendable (SocketConnection) -> Void) throws(SocketError) {
        self.path = path
        self.options = options
        socket = try ListeningSocket.open(path: path, backlog: options.backlog)
        DetachedThread.start(name: "cb accept") { [self] in acceptLoop(onConnection) }
    }

    /// Stops accepting and removes the socket file. Sessions already accepted go on until they
    /// are closed themselves.
    public func close() {
        let first = state.withLock { state -> Bool in
            defer { state.closing = true }
            return !state.closing
        }
        // Shutting a listening socket down makes the blocked accept return.
        if first { _ = shutdown(socket.fd, Int32(SHUT_RDWR)) }
    }

    /// Resumes once the accepting thread has ended and the socket file is gone.
    public func waitUntilClosed() async {
        await withCheckedContinuation { continuation in
            let closed = state.withLock { state -> Bool in
                if state.closed { return true }
                state.waiters.append(continuation)
                return false
            }
            if closed { continuation.resume() }
        }
    }

    private func acceptLoop(_ onConnection: @Sendable (SocketConnection) -> Void) {
        while !state.withLock({ $0.closing }) {
            let fd = Syscalls.accept(socket.fd)
            if fd >= 0 {
                serve(fd, onConnection)
                continue
            }
            switch -fd {
            case ECONNABORTED, EPROTO:
                continue
            case EMFILE, ENFILE, ENOBUFS, ENOMEM:
                usleep(50_000)   // out of descriptors or memory: wait instead of spinning
            default:
                if state.withLock({ $0.closing }) { break }
                usleep(10_000)
            }
        }
        Syscalls.closeDescriptor(socket.fd)
        socket.release(path: path)
        let waiters = state.withLock { state in
            state.closed = true
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
    }

    private func serve(_ fd: Int32, _ onConnection: @Sendable (SocketConnection) -> Void) {
        guard let credentials = Syscalls.peerCredentials(fd) else {
            Syscalls.closeDescriptor(fd)
            return
        }
        guard options.connection.acceptPeer(credentials) else {
            refuse(fd, credentials)
            return
        }
        let connection = SocketConnection(fd: fd, role: .host, path: path, credentials: credentials,
                                          options: options.connection)
        onConnection(connection)
        connection.startReading()
    }

    /// GOODBYE `forbidden` as the first and only frame, then close. AF_UNIX queues sent bytes at
    /// the peer at once, so closing right after does not lose them.
    private func refuse(_ fd: Int32, _ credentials: PeerCredentials) {
        let goodbye = FrameEncoder.encode(.goodbye(code: .forbidden,
                                                   reason: "uid \(credentials.uid) may not use this host"))
        _ = Syscalls.sendNow(fd, [goodbye][...], firstOffset: 0)
        _ = shutdown(fd, Int32(SHUT_RDWR))
        Syscalls.closeDescriptor(fd)
        options.onRefusedPeer?(credentials)
    }
}

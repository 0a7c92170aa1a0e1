import ChannelBridgeMessenger
import ChannelBridgePlatform
import Dispatch
import FoundationEssentials

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
/// 0700); its directory must pass `SocketPath.checkDirectory` (`SocketError.unsafeDirectory`:
/// owned by this user or root, not writable by others); a stale file is replaced, a live socket is never taken over (`SocketError.addressInUse`).
/// Each accepted peer's credentials are checked against `acceptPeer` before anything is read; a
/// refused peer gets GOODBYE `forbidden` as its first and only frame. At most
/// `Options.maxConnections` sessions are open at once: a further peer, or one for which no reader
/// thread can be started, gets GOODBYE `tooManyConnections` as its first and only frame. Each
/// session has one reader thread (and a writer thread while its peer does not keep up), so the
/// listener's threads are bounded by twice that limit plus the accepting thread. Accepting runs
/// on a dedicated thread, never on the Swift concurrency pool.
public final class SocketListener: Sendable {
    /// Settings for the listener and the sessions it accepts.
    public struct Options: Sendable {
        /// Settings for each accepted session, including the peer policy `acceptPeer`.
        public var connection: SocketConnection.Options
        /// The `listen` backlog.
        public var backlog: Int32
        /// Told about each refused peer (for logs); runs on the accepting thread.
        public var onRefusedPeer: (@Sendable (PeerCredentials) -> Void)?
        /// At most this many sessions at once; a further peer gets GOODBYE `tooManyConnections`.
        /// Default 128.
        public var maxConnections: Int
        /// When set, each admitted connection (its peer accepted, within `maxConnections`) is
        /// given to this instead of being served here: it gets the descriptor, which it then owns,
        /// the peer's credentials, and a call to make once the session has ended (which frees its
        /// place under `maxConnections`). It answers `nil` when it took the connection, or the
        /// reason to refuse it with GOODBYE `tooManyConnections` (the descriptor is then still the
        /// listener's). Runs on the accepting thread. An isolated host hands connections to its
        /// worker processes this way.
        package var serveElsewhere:
            (@Sendable (Int32, PeerCredentials, _ ended: @escaping @Sendable () -> Void) -> String?)?
        /// Starts the reader threads; replaceable so that tests can make it fail.
        package var startThread: @Sendable (String, @escaping @Sendable () -> Void) -> Int32 = DetachedThread.tryStart

        public static let defaultMaxConnections = 128

        public init(
            connection: SocketConnection.Options = SocketConnection.Options(), backlog: Int32 = 128,
            onRefusedPeer: (@Sendable (PeerCredentials) -> Void)? = nil,
            maxConnections: Int = Options.defaultMaxConnections
        ) {
            self.connection = connection
            self.backlog = backlog
            self.onRefusedPeer = onRefusedPeer
            self.maxConnections = maxConnections
        }
    }

    private struct State {
        var connections = 0
        var refusedForLimit = 0
    }

    /// The socket path being served.
    public let path: String
    public let options: Options
    private let acceptor: Acceptor
    private let state = LockedValue(State())

    private let onConnection: @Sendable (SocketConnection) -> Void

    /// Binds `path` and starts accepting. `onConnection` runs on the accepting thread for each
    /// accepted session before anything is read from it (its HELLO has gone out): install handlers
    /// there, and return quickly (the next client waits meanwhile).
    public convenience init(
        path: String = SocketPath.defaultPath(), options: Options = Options(),
        onConnection: @escaping @Sendable (SocketConnection) -> Void
    ) throws(SocketError) {
        try self.init(binding: path, options: options, onConnection: onConnection)
        try startAccepting()
    }

    /// Binds `path` without accepting yet: clients that connect meanwhile wait in the `listen`
    /// backlog until `startAccepting()`, so a server can finish preparing (files copied, keys
    /// written) before any session can see it, with no thread waiting for that.
    package init(
        binding path: String, options: Options = Options(),
        onConnection: @escaping @Sendable (SocketConnection) -> Void
    ) throws(SocketError) {
        self.path = path
        self.options = options
        self.onConnection = onConnection
        acceptor = try Acceptor(path: path, backlog: options.backlog)
    }

    /// Starts the accepting thread, once; does nothing after `close()`.
    ///
    /// - Throws: `SocketError` `systemCall` when no thread can be started; the listener is closed
    ///   then (the socket file is gone).
    package func startAccepting() throws(SocketError) {
        try acceptor.start(threadName: "cb accept", startThread: options.startThread) { [self] fd in
            serve(fd, onConnection)
        }
    }

    /// The sessions open now (accepted and not yet closed).
    public var connectionCount: Int { state.withLock { $0.connections } }

    /// How many peers were refused with GOODBYE `tooManyConnections` so far.
    public var refusedConnectionCount: Int { state.withLock { $0.refusedForLimit } }

    /// Stops accepting and removes the socket file. Sessions already accepted go on until they
    /// are closed themselves.
    public func close() {
        acceptor.close()
    }

    /// Resumes once the accepting thread has ended and the socket file is gone.
    public func waitUntilClosed() async {
        await acceptor.waitUntilClosed()
    }

    private func serve(_ fd: Int32, _ onConnection: @escaping @Sendable (SocketConnection) -> Void) {
        guard let credentials = Syscalls.credentials(of: fd) else {
            Syscalls.closeDescriptor(fd)
            return
        }
        guard options.connection.acceptPeer(credentials) else {
            refuse(fd, code: .forbidden, reason: "uid \(credentials.uid) may not use this host")
            options.onRefusedPeer?(credentials)
            return
        }
        let limit = options.maxConnections
        let admitted = state.withLock { state -> Bool in
            guard state.connections < limit else {
                state.refusedForLimit += 1
                return false
            }
            state.connections += 1
            return true
        }
        guard admitted else {
            refuse(fd, code: .tooManyConnections, reason: "this host serves at most \(limit) connections at a time")
            return
        }
        if let serveElsewhere = options.serveElsewhere {
            if let refusal = serveElsewhere(fd, credentials, { [weak self] in self?.connectionEnded() }) {
                connectionEnded()
                state.withLock { $0.refusedForLimit += 1 }
                refuse(fd, code: .tooManyConnections, reason: refusal)
            }
            return
        }
        // The reader thread comes first, so that a peer this process cannot serve is refused
        // before it gets a HELLO; it waits until the session is set up.
        let handoff = Handoff()
        let started = options.startThread("cb reader \(fd)") { handoff.take()?.runReader() }
        guard started == 0 else {
            connectionEnded()
            state.withLock { $0.refusedForLimit += 1 }
            refuse(
                fd, code: .tooManyConnections,
                reason: "this host cannot start a thread for another connection (\(Syscalls.errorText(started)))")
            return
        }
        let connection = SocketConnection(
            fd: fd, role: .host, path: path, credentials: credentials,
            options: options.connection)
        connection.transport.onDescriptorClosed { [weak self] in self?.connectionEnded() }
        onConnection(connection)
        handoff.give(connection)
    }

    private func connectionEnded() {
        state.withLock { $0.connections -= 1 }
    }

    /// GOODBYE `code` as the first and only frame, then close. AF_UNIX queues sent bytes at the
    /// peer at once, so closing right after does not lose them.
    private func refuse(_ fd: Int32, code: GoodbyeCode, reason: String) {
        if let goodbye = try? FrameEncoder.encode(.goodbye(code: code, reason: reason)) {
            _ = Syscalls.sendNow(fd, [goodbye][...], firstOffset: 0)
        }
        Syscalls.shutdown(fd)
        Syscalls.closeDescriptor(fd)
    }
}

/// Hands an accepted connection to the reader thread started for it before it was set up.
final class Handoff: Sendable {
    private let connection = LockedValue<SocketConnection?>(nil)
    private let ready = DispatchSemaphore(value: 0)

    func give(_ connection: SocketConnection) {
        self.connection.withLock { $0 = connection }
        ready.signal()
    }

    /// Waits for `give`; runs on the reader thread, never on the concurrency pool.
    func take() -> SocketConnection? {
        ready.wait()
        return connection.withLock { connection in
            defer { connection = nil }
            return connection
        }
    }
}

public import ChannelBridgeMessenger
import ChannelBridgePlatform
import FoundationEssentials

/// One session over a connected Unix socket: a `MessengerConnection` (the `BinaryMessenger`),
/// a reader thread that blocks in `read` and feeds it, and the peer's credentials.
///
/// ```swift
/// let connection = try await SocketConnection.connect(to: SocketPath.defaultPath())
/// let reply = try await connection.messenger.send(onChannel: "channelbridge/echo", message: [1])
/// connection.close()
/// await connection.waitUntilClosed()
/// ```
public final class SocketConnection: Sendable {
    /// The session; pass it to channels as their `BinaryMessenger`.
    public let messenger: MessengerConnection
    /// The credentials of the process at the other end, as recorded when it connected.
    public let peerCredentials: PeerCredentials
    /// The socket path this connection was made on.
    public let path: String
    let transport: SocketTransport

    private let helloTimeout: Duration?

    init(fd: Int32, role: PeerRole, path: String, credentials: PeerCredentials, options: Options) {
        transport = SocketTransport(fd: fd, options: options)
        messenger = MessengerConnection(role: role, options: options.messengerOptions, transport: transport)
        peerCredentials = credentials
        self.path = path
        helloTimeout = options.helloTimeout
    }

    /// Runs tasks that prefer it on this connection's reader thread when
    /// `Options.runsTasksOnReaderThread` is set, else on the global concurrent executor; see
    /// `ReaderExecutor`. SPI for the Benchmarks/ package, whose client calls prefer it.
    @_spi(Benchmarks) public var executor: any TaskExecutor { transport.executor }

    /// The peer name from the peer's HELLO, once it has arrived.
    public var peerName: String? { messenger.peerHello?.peerName }

    /// Connects to the host listening at `path`. `configure` runs before anything is read, so
    /// handlers installed there see the host's first frames.
    ///
    /// The connect itself runs on the connection's own reader thread, never on the Swift
    /// concurrency pool, and waits at most `options.connectTimeout` for the host to accept.
    /// Throws `SocketError`: `notFound` (no socket file), `connectionRefused` (a stale file),
    /// `timedOut` (the host did not accept in time: stopped, or its backlog full),
    /// `peerNotAccepted` (the host's uid fails `options.acceptPeer`), ... A host
    /// that refuses this process shows up as `MessengerError.forbidden` from
    /// `messenger.waitForPeerHello()` and from `onClose`.
    public static func connect(
        to path: String = SocketPath.defaultPath(),
        options: Options = Options(),
        configure: @escaping @Sendable (SocketConnection) -> Void = { _ in }
    ) async throws -> SocketConnection {
        try SocketPath.checkDirectory(of: path)
        guard let address = Syscalls.address(for: path) else {
            throw SocketError(.invalidPath, "a Unix socket path must have 1 to 107 bytes and no NUL", path: path)
        }
        let fd = try Syscalls.streamSocket()
        // The connection also crosses to the caller through a lock. When the thread resumes the
        // continuation before the caller has suspended on it, the Swift runtime hands over with an
        // atomic ThreadSanitizer does not see (swiftlang/swift#57803), and every field `init`
        // wrote on this thread was reported as a race with its first read in the caller.
        let handOff = LockedValue<SocketConnection?>(nil)
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            let started = DetachedThread.tryStart(name: "cb reader client") {
                let outcome = Result { () throws(SocketError) -> SocketConnection in
                    try establish(fd: fd, address: address, path: path, options: options)
                }
                guard case .success(let connection) = outcome else {
                    Syscalls.closeDescriptor(fd)
                    continuation.resume(with: outcome.map { _ in }.mapError { $0 as any Error })
                    return
                }
                configure(connection)
                handOff.withLock { $0 = connection }
                continuation.resume()
                connection.runReader()
            }
            if started != 0 {
                Syscalls.closeDescriptor(fd)
                continuation.resume(
                    throwing: SocketError(
                        .systemCall,
                        "cannot start the connection's reader thread: "
                            + Syscalls.errorText(started), path: path, errno: started))
            }
        }
        // Set before the continuation was resumed without an error.
        return handOff.withLock { $0! }
    }

    /// Serves the connected Unix socket `fd` (which it then owns) as a session of `role`: a
    /// socket pair's end, or a connection another process accepted and passed on. `configure`
    /// runs before anything is read, on the calling thread; reading then runs on a thread of the
    /// connection's own. Used by an isolated host's workers for their client's connection and for
    /// the control channel between host and worker.
    ///
    /// - Throws: `SocketError` `credentials` when the peer's credentials cannot be read, or
    ///   `systemCall` when no reader thread can be started; `fd` is closed then.
    package static func adopt(
        fd: Int32, role: PeerRole, path: String, options: Options,
        configure: (SocketConnection) -> Void = { _ in }
    ) throws(SocketError) -> SocketConnection {
        guard let credentials = Syscalls.credentials(of: fd) else {
            let error = Syscalls.failure("getsockopt(SO_PEERCRED)", code: .credentials, path: path)
            Syscalls.closeDescriptor(fd)
            throw error
        }
        let handoff = Handoff()
        let started = DetachedThread.tryStart(name: "cb reader \(fd)") { handoff.take()?.runReader() }
        guard started == 0 else {
            Syscalls.closeDescriptor(fd)
            throw SocketError(
                .systemCall, "cannot start the connection's reader thread: " + Syscalls.errorText(started),
                path: path, errno: started)
        }
        let connection = SocketConnection(fd: fd, role: role, path: path, credentials: credentials, options: options)
        configure(connection)
        handoff.give(connection)
        return connection
    }

    private static func establish(
        fd: Int32, address: SocketAddress, path: String,
        options: Options
    ) throws(SocketError) -> SocketConnection {
        let result = Syscalls.connect(fd, to: address, milliseconds: milliseconds(options.connectTimeout))
        switch result {
        case 0:
            break
        case Errno.ETIMEDOUT:
            throw SocketError.timedOut(path: path, after: options.connectTimeout)
        case Errno.ENOENT:
            throw SocketError(.notFound, "no socket file: no host has started there", path: path, errno: result)
        case Errno.ECONNREFUSED:
            throw SocketError(
                .connectionRefused, "nothing accepts connections on this socket (stale file)",
                path: path, errno: result)
        default:
            throw Syscalls.failure("connect", path: path, errno: result)
        }
        guard let credentials = Syscalls.credentials(of: fd) else {
            throw Syscalls.failure("getsockopt(SO_PEERCRED)", code: .credentials, path: path)
        }
        guard options.acceptPeer(credentials) else {
            throw SocketError(
                .peerNotAccepted, "the host (\(credentials)) is not accepted by this client's peer policy",
                path: path)
        }
        return SocketConnection(fd: fd, role: .client, path: path, credentials: credentials, options: options)
    }

    /// Ends the session with GOODBYE `code`: replies still owed are sent first, then the socket is
    /// shut down. Calls still waiting for replies fail with `connectionClosed`.
    public func close(code: GoodbyeCode = .normal, reason: String = "") {
        messenger.close(code: code, reason: reason)
    }

    /// Runs `callback` once when the session ends; see `BinaryMessenger.onClose`.
    public func onClose(_ callback: @escaping @Sendable (MessengerError) -> Void) {
        messenger.onClose(callback)
    }

    /// The connection's outbound flow state (wire protocol §4.10).
    package var outboundFlow: OutboundFlow { transport.outboundFlow }

    /// Bytes queued and not yet handed to the socket, and the answer bytes among them.
    package var unsentByteCounts: (all: Int, answers: Int) { transport.unsentByteCounts }

    /// The socket's send buffer as the kernel accounts it (`Options.socketSendBufferSize`).
    package var socketSendBufferSize: Int? { Syscalls.sendBufferSize(transport.fd) }

    /// Resumes once the session is over and the socket's descriptor has been closed.
    public func waitUntilClosed() async {
        await transport.waitUntilClosed()
    }

    /// Reads until the connection ends, on the calling thread (the connection's reader thread).
    /// A peer that has not sent HELLO within `Options.helloTimeout` is sent GOODBYE and closed.
    func runReader() {
        if let helloTimeout {
            // A strong reference, dropped when the session ends: a weak one would give the
            // messenger a side table and make every retain of it on the fast path slower.
            let messenger = self.messenger
            let timer = Task {
                try? await Task.sleep(for: helloTimeout)
                guard !Task.isCancelled, messenger.peerHello == nil, messenger.closeError == nil else { return }
                messenger.close(
                    code: .protocolError, reason: "no HELLO within \(Self.seconds(helloTimeout)) s",
                    waitForOwedReplies: false)
            }
            messenger.onClose { _ in timer.cancel() }
        }
        transport.runReader(for: messenger)
    }

    /// `duration` in whole milliseconds, rounded up so that a positive wait stays positive.
    private static func milliseconds(_ duration: Duration) -> Int64 {
        let (seconds, attoseconds) = duration.components
        guard seconds >= 0, attoseconds >= 0 else { return 0 }
        let (whole, overflow) = seconds.multipliedReportingOverflow(by: 1000)
        if overflow { return Int64.max / 2 }
        return whole + (attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000
    }

    static func seconds(_ duration: Duration) -> String {
        let (seconds, attoseconds) = duration.components
        let value = Double(seconds) + Double(attoseconds) / 1e18
        return value == value.rounded() ? String(Int64(value)) : String(value)
    }
}

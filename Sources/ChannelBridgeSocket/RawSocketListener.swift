import ChannelBridgePlatform

/// Accepts connections on a Unix socket path and hands each one over as a plain descriptor, with
/// no session on it: for a proxy that passes bytes through (`channelbridge record`). Binding is
/// `SocketListener`'s (mode 0600, the lock file, a live socket never taken over, a stale one
/// replaced, the directory checked); only peers of this effective uid are accepted, others are
/// closed at once. Accepting runs on a thread of its own.
package final class RawSocketListener: Sendable {
    private struct State {
        var accepting = false
        var closing = false
        var closed = false
        var waiters: [CheckedContinuation<Void, Never>] = []
    }

    package let path: String
    private let socket: ListeningSocket
    private let state = LockedValue(State())

    private let onConnection: @Sendable (Int32) -> Void

    /// Binds `path` without accepting yet: clients that connect meanwhile wait in the `listen`
    /// backlog until `startAccepting()`, so that a line the server prints first ("ready") precedes
    /// anything a client can get back. `onConnection` runs on the accepting thread with each
    /// accepted descriptor, which it then owns.
    package init(path: String, onConnection: @escaping @Sendable (Int32) -> Void) throws(SocketError) {
        self.path = path
        self.onConnection = onConnection
        socket = try ListeningSocket.open(path: path, backlog: 128)
    }

    /// Starts the accepting thread, once; does nothing after `close()`.
    ///
    /// - Throws: `SocketError` `systemCall` when no thread can be started; the listener is closed.
    package func startAccepting() throws(SocketError) {
        let start = state.withLock { state -> Bool in
            guard !state.accepting, !state.closing else { return false }
            state.accepting = true
            return true
        }
        guard start else { return }
        let started = DetachedThread.tryStart(name: "cb raw accept") { [self] in acceptLoop(onConnection) }
        if started != 0 {
            state.withLock { $0.closing = true }
            finishClosing()
            throw SocketError(
                .systemCall, "cannot start the accepting thread: \(Syscalls.errorText(started))", path: path,
                errno: started)
        }
    }

    /// Stops accepting and removes the socket file; accepted descriptors are their owners' to close.
    package func close() {
        let (first, accepting) = state.withLock { state -> (Bool, Bool) in
            defer { state.closing = true }
            return (!state.closing, state.accepting)
        }
        guard first else { return }
        if accepting { Syscalls.shutdown(socket.fd) } else { finishClosing() }
    }

    /// Resumes once the accepting thread has ended and the socket file is gone.
    package func waitUntilClosed() async {
        await withCheckedContinuation { continuation in
            let closed = state.withLock { state -> Bool in
                if state.closed { return true }
                state.waiters.append(continuation)
                return false
            }
            if closed { continuation.resume() }
        }
    }

    private func acceptLoop(_ onConnection: @escaping @Sendable (Int32) -> Void) {
        while !state.withLock({ $0.closing }) {
            let fd = Syscalls.accept(socket.fd)
            if fd >= 0 {
                guard let credentials = Syscalls.peerCredentials(fd), credentials.uid == Syscalls.effectiveUserID else {
                    Syscalls.closeDescriptor(fd)
                    continue
                }
                onConnection(fd)
                continue
            }
            switch -fd {
            case Errno.ECONNABORTED, Errno.EPROTO:
                continue
            case Errno.EMFILE, Errno.ENFILE, Errno.ENOBUFS, Errno.ENOMEM:
                Syscalls.sleep(microseconds: 50_000)  // out of descriptors or memory: wait instead of spinning
            default:
                if state.withLock({ $0.closing }) { break }
                Syscalls.sleep(microseconds: 10_000)
            }
        }
        finishClosing()
    }

    private func finishClosing() {
        Syscalls.closeDescriptor(socket.fd)
        socket.release(path: path)
        let waiters = state.withLock { state in
            state.closed = true
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
    }
}

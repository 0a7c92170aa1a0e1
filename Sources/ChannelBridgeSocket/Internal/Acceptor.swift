import ChannelBridgePlatform

/// A bound listening socket's life, which `SocketListener` and `RawSocketListener` share: bound
/// without accepting, then accepting on a thread of its own once started, then closed once, the
/// socket file removed and `waitUntilClosed` resumed. What is done with an accepted descriptor is
/// the listener's.
final class Acceptor: Sendable {
    private struct State {
        /// Whether the accepting thread was started.
        var accepting = false
        var closing = false
        var closed = false
        var waiters: [CheckedContinuation<Void, Never>] = []
    }

    let path: String
    private let socket: ListeningSocket
    private let state = LockedValue(State())

    /// Binds `path`; clients that connect wait in the `listen` backlog until `start`.
    init(path: String, backlog: Int32) throws(SocketError) {
        self.path = path
        socket = try ListeningSocket.open(path: path, backlog: backlog)
    }

    /// Starts the accepting thread, named `threadName`, once; does nothing after `close()`.
    /// `accepted` runs on that thread with each accepted descriptor, which it then owns.
    ///
    /// - Throws: `SocketError` `systemCall` when no thread can be started; closed then (the
    ///   socket file is gone).
    func start(
        threadName: String, startThread: ThreadStarter, _ accepted: @escaping @Sendable (Int32) -> Void
    ) throws(SocketError) {
        let start = state.withLock { state -> Bool in
            guard !state.accepting, !state.closing else { return false }
            state.accepting = true
            return true
        }
        guard start else { return }
        let started = startThread(threadName) { [self] in
            acceptConnections(accepted)
            finishClosing()
        }
        if started != 0 {
            state.withLock { $0.closing = true }
            finishClosing()
            throw SocketError(
                .systemCall, "cannot start the accepting thread: \(Syscalls.errorText(started))", path: path,
                errno: started)
        }
    }

    /// Stops accepting and removes the socket file.
    func close() {
        let (first, accepting) = state.withLock { state -> (Bool, Bool) in
            defer { state.closing = true }
            return (!state.closing, state.accepting)
        }
        guard first else { return }
        // Shutting a listening socket down makes the blocked accept return; one that never
        // accepted has no thread to do the rest.
        if accepting { Syscalls.shutdown(socket.fd) } else { finishClosing() }
    }

    /// Resumes once the accepting thread has ended and the socket file is gone.
    func waitUntilClosed() async {
        await withCheckedContinuation { continuation in
            let closed = state.withLock { state -> Bool in
                if state.closed { return true }
                state.waiters.append(continuation)
                return false
            }
            if closed { continuation.resume() }
        }
    }

    /// Accepts until `close()`. An aborted connection is skipped; when the process is out of
    /// descriptors or memory the loop waits 50 ms before it tries again instead of spinning; any
    /// other failure (the socket shut down by `close`) ends the loop once closing, and is otherwise
    /// tried again after 10 ms.
    private func acceptConnections(_ accepted: (Int32) -> Void) {
        while !state.withLock({ $0.closing }) {
            let fd = Syscalls.accept(socket.fd)
            if fd >= 0 {
                accepted(fd)
                continue
            }
            switch -fd {
            case Errno.ECONNABORTED, Errno.EPROTO:
                continue
            case Errno.EMFILE, Errno.ENFILE, Errno.ENOBUFS, Errno.ENOMEM:
                Syscalls.sleep(microseconds: 50_000)
            default:
                if state.withLock({ $0.closing }) { break }
                Syscalls.sleep(microseconds: 10_000)
            }
        }
    }

    /// Closes the descriptor, removes the socket file and wakes `waitUntilClosed`; runs once, on
    /// the accepting thread as it ends, or in `close()` when it never started.
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

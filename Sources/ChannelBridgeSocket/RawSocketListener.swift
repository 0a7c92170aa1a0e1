import ChannelBridgePlatform

/// Accepts connections on a Unix socket path and hands each one over as a plain descriptor, with
/// no session on it: for a proxy that passes bytes through (`channelbridge record`). Binding is
/// `SocketListener`'s (mode 0600, the lock file, a live socket never taken over, a stale one
/// replaced, the directory checked); only peers of this effective uid are accepted, others are
/// closed at once. Accepting runs on a thread of its own.
package final class RawSocketListener: Sendable {
    package let path: String
    private let acceptor: Acceptor
    private let onConnection: @Sendable (Int32) -> Void

    /// Binds `path` without accepting yet: clients that connect meanwhile wait in the `listen`
    /// backlog until `startAccepting()`, so that a line the server prints first ("ready") precedes
    /// anything a client can get back. `onConnection` runs on the accepting thread with each
    /// accepted descriptor, which it then owns.
    package init(path: String, onConnection: @escaping @Sendable (Int32) -> Void) throws(SocketError) {
        self.path = path
        self.onConnection = onConnection
        acceptor = try Acceptor(path: path, backlog: 128)
    }

    /// Starts the accepting thread, once; does nothing after `close()`.
    ///
    /// - Throws: `SocketError` `systemCall` when no thread can be started; the listener is closed.
    package func startAccepting() throws(SocketError) {
        try acceptor.start(threadName: "cb raw accept", startThread: DetachedThread.tryStart) { [onConnection] fd in
            guard let credentials = Syscalls.peerCredentials(fd), credentials.uid == Syscalls.effectiveUserID else {
                Syscalls.closeDescriptor(fd)
                return
            }
            onConnection(fd)
        }
    }

    /// Stops accepting and removes the socket file; accepted descriptors are their owners' to close.
    package func close() {
        acceptor.close()
    }

    /// Resumes once the accepting thread has ended and the socket file is gone.
    package func waitUntilClosed() async {
        await acceptor.waitUntilClosed()
    }
}

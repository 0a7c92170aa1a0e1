import ChannelBridgeMessenger
import Glibc

extension SocketConnection {
    /// Settings for one socket session, on either end.
    public struct Options: Sendable {
        /// The peer name sent in this side's HELLO.
        public var name: String
        /// The largest frame this side accepts; see `MessengerConnection.Options.maxFrameLength`.
        public var maxFrameLength: Int
        /// Decides whether the process at the other end may talk to this one, from the
        /// credentials the kernel recorded (`SO_PEERCRED`). By default only the same effective
        /// uid. A host answers a refused peer with GOODBYE `forbidden` as its first and only
        /// frame; a client refuses to use a host it does not accept.
        public var acceptPeer: @Sendable (PeerCredentials) -> Bool
        /// How long closing may wait for queued bytes to drain into the socket before giving up.
        public var closeTimeout: Duration
        /// Lets tasks that prefer `SocketConnection.executor` run on the reader thread, between
        /// reads, which saves a thread wake-up per round trip (see `ReaderExecutor`); off by
        /// default, because such tasks then share the thread that reads this connection.
        public var runsTasksOnReaderThread: Bool

        public init(name: String = "channelbridge pid \(getpid())",
                    maxFrameLength: Int = FrameDecoder.defaultMaxFrameLength,
                    acceptPeer: @escaping @Sendable (PeerCredentials) -> Bool = SocketConnection.sameUser,
                    closeTimeout: Duration = .seconds(5),
                    runsTasksOnReaderThread: Bool = false) {
            self.name = name
            self.maxFrameLength = maxFrameLength
            self.acceptPeer = acceptPeer
            self.closeTimeout = closeTimeout
            self.runsTasksOnReaderThread = runsTasksOnReaderThread
        }

        var messengerOptions: MessengerConnection.Options {
            MessengerConnection.Options(name: name, maxFrameLength: maxFrameLength)
        }
    }

    /// The default peer policy: the peer runs as this process's effective uid.
    public static let sameUser: @Sendable (PeerCredentials) -> Bool = { $0.uid == geteuid() }
}

public import ChannelBridgeMessenger
import ChannelBridgePlatform

extension SocketConnection {
    /// Settings for one socket session, on either end. Every limit here is stated, with its
    /// default and what happens when it is reached, in `Protocol/wire-protocol.md` §4.10.
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
        /// default, because such tasks then share the thread that reads this connection. Package
        /// API, a fast path for the package's own clients; SPI for the Benchmarks/ package.
        @_spi(Benchmarks) public var runsTasksOnReaderThread: Bool
        /// Unsent bytes above which the connection stops taking new work from this side (requests
        /// wait to be sent, event sinks buffer or wait) and, when they are answers, stops reading
        /// the peer's requests. Default 4 MiB.
        public var outboundHighWater: Int
        /// Unsent bytes at or below which that ends. Default 1 MiB.
        public var outboundLowWater: Int
        /// At most this many of the peer's requests and messages have an asynchronous handler
        /// running at once; further ones wait unread. Default 64.
        public var maxHandlersInFlight: Int
        /// Bytes of the peer's requests in flight, shared with every connection given the same
        /// object (`RequestBudget`, wire protocol §4.10): a request that does not fit waits
        /// unread. Default `nil`: no budget.
        public var requestBudget: RequestBudget?
        /// Closes the connections that share it to new requests at once (`RequestGate`).
        package var requestGate: RequestGate?
        /// A peer that has not sent its HELLO this long after the connection was set up gets
        /// GOODBYE `protocolError` and is closed. Default 5 s; `nil` waits for ever.
        public var helloTimeout: Duration?
        /// How long `SocketConnection.connect` may wait for the host to accept the connection (a
        /// host that is stopped or overloaded leaves it queued in a full backlog), and how long
        /// `ExtensionHostClient.connect` may take in all, the host's HELLO included; then
        /// `SocketError.timedOut`. Default 5 s. The wait runs on the connection's own thread.
        public var connectTimeout: Duration
        /// The send buffer this side asks the kernel for (`SO_SNDBUF`; Linux accounts twice this,
        /// for its bookkeeping): what the socket holds on its way to the peer, on top of
        /// `outboundHighWater`. Larger than the system's default (208 KiB on Linux) so that a
        /// large payload streams with both processes copying at once instead of taking turns,
        /// which brings large round trips much closer to the raw C pair's rate than the default
        /// does (`channelbridge-bench bulk` compares them). Default 512 KiB; `nil` keeps the
        /// system's default.
        public var socketSendBufferSize: Int?
        /// The frame deadline (wire protocol §4.10, rule 9): once a frame of the peer's has begun
        /// to arrive, the time this side spends waiting for the rest of it may not exceed
        /// `frameTimeout` plus one second for every `frameMinimumRate` bytes of it received so far.
        /// A peer over it is sent GOODBYE `frameTimeout` and closed, which frees its connection
        /// slot. Only waiting on an empty socket counts: not the time between frames (an idle peer
        /// is never cut), nor time this side spends not reading because it holds the peer's input
        /// back (`maxHandlersInFlight` reached, answers over `outboundHighWater`, a request
        /// waiting for `requestBudget`), nor time spent delivering. Default 10 s; `nil` waits for
        /// ever.
        public var frameTimeout: Duration?
        /// Bytes per second of a frame that each extend its deadline by one second, so that a large
        /// frame sent steadily is never cut. Default 1 MiB/s. Must be positive.
        public var frameMinimumRate: Int

        public static let defaultOutboundHighWater = 4 << 20
        public static let defaultOutboundLowWater = 1 << 20
        public static let defaultHelloTimeout: Duration = .seconds(5)
        public static let defaultSocketSendBufferSize = 512 << 10
        public static let defaultConnectTimeout: Duration = .seconds(5)
        public static let defaultFrameTimeout: Duration = .seconds(10)
        public static let defaultFrameMinimumRate = 1 << 20

        /// This process's id, for the default name (visible to inlined callers).
        @usableFromInline static var processID: Int32 { Syscalls.processID }

        public init(
            name: String = "channelbridge pid \(Options.processID)",
            maxFrameLength: Int = FrameDecoder.defaultMaxFrameLength,
            acceptPeer: @escaping @Sendable (PeerCredentials) -> Bool = SocketConnection.sameUser,
            closeTimeout: Duration = .seconds(5),
            outboundHighWater: Int = Options.defaultOutboundHighWater,
            outboundLowWater: Int = Options.defaultOutboundLowWater,
            maxHandlersInFlight: Int = MessengerConnection.Options.defaultMaxHandlersInFlight,
            helloTimeout: Duration? = Options.defaultHelloTimeout,
            socketSendBufferSize: Int? = Options.defaultSocketSendBufferSize,
            connectTimeout: Duration = Options.defaultConnectTimeout,
            frameTimeout: Duration? = Options.defaultFrameTimeout,
            frameMinimumRate: Int = Options.defaultFrameMinimumRate
        ) {
            self.name = name
            self.maxFrameLength = maxFrameLength
            self.acceptPeer = acceptPeer
            self.closeTimeout = closeTimeout
            runsTasksOnReaderThread = false
            self.outboundHighWater = outboundHighWater
            self.outboundLowWater = outboundLowWater
            self.maxHandlersInFlight = maxHandlersInFlight
            self.helloTimeout = helloTimeout
            self.socketSendBufferSize = socketSendBufferSize
            self.connectTimeout = connectTimeout
            self.frameTimeout = frameTimeout
            self.frameMinimumRate = max(1, frameMinimumRate)
        }

        /// The defaults, with tasks that prefer `SocketConnection.executor` run on the reader thread
        /// when `runsTasksOnReaderThread` is true.
        package init(runsTasksOnReaderThread: Bool) {
            self.init()
            self.runsTasksOnReaderThread = runsTasksOnReaderThread
        }

        var messengerOptions: MessengerConnection.Options {
            var options = MessengerConnection.Options(
                name: name, maxFrameLength: maxFrameLength,
                maxHandlersInFlight: maxHandlersInFlight, requestBudget: requestBudget)
            options.requestGate = requestGate
            return options
        }
    }

    /// The default peer policy: the peer runs as this process's effective uid.
    public static let sameUser: @Sendable (PeerCredentials) -> Bool = { $0.uid == Syscalls.effectiveUserID }
}

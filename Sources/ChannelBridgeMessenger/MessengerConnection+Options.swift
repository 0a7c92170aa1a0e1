extension MessengerConnection {
    /// Settings for one session.
    public struct Options: Sendable {
        /// Free text sent as the peer name in this side's HELLO, e.g. `channelbridge 0.1 pid 4242`.
        /// Longer than 65,535 UTF-8 bytes is cut.
        public var name: String
        /// The largest frame this side accepts (the value of the length field). A larger incoming
        /// frame ends the session with GOODBYE `frameTooLarge`; a larger outgoing message is
        /// refused locally with `MessengerError.frameTooLarge` so that the session survives. A value
        /// other than the default is announced in this side's HELLO, so that the peer keeps to it.
        public var maxFrameLength: Int
        /// At most this many of the peer's requests and messages have an asynchronous handler
        /// running at once; a further one waits, unread, until one finishes (wire protocol §4.10).
        /// Synchronous handlers do not count: they finish before the next frame is read. A package
        /// handler that may answer later counts while it runs and while work it hands to a task
        /// runs, since it may suspend; an answer it gives at once frees its slot at once. Applies
        /// on transports that can stop reading (the socket transport), not in memory.
        public var maxHandlersInFlight: Int

        /// Bytes of requests in flight shared with other connections (`RequestBudget`): a request
        /// that does not fit waits, unread, until others are answered. Applies, as
        /// `maxHandlersInFlight` does, on transports that can stop reading. `nil`: no budget.
        public var requestBudget: RequestBudget?

        /// Shared with other connections that close to new requests together (package API: the
        /// extension host's sessions, when its request ends). `nil`: no gate.
        package var requestGate: RequestGate?

        /// The default for `maxHandlersInFlight`.
        public static let defaultMaxHandlersInFlight = 64

        public init(
            name: String = "channelbridge", maxFrameLength: Int = FrameDecoder.defaultMaxFrameLength,
            maxHandlersInFlight: Int = Options.defaultMaxHandlersInFlight,
            requestBudget: RequestBudget? = nil
        ) {
            self.requestBudget = requestBudget
            self.name = name
            self.maxFrameLength = maxFrameLength
            self.maxHandlersInFlight = maxHandlersInFlight
        }
    }
}

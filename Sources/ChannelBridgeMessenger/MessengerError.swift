/// A message could not be delivered or answered.
public struct MessengerError: Error, Sendable, Hashable, CustomStringConvertible {
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        private let name: String
        private init(_ name: String) { self.name = name }
        public var description: String { name }

        /// The connection ended before the reply arrived.
        public static let connectionClosed = Code("connectionClosed")
        /// The remote handler failed outside the codec (REPLY status 2).
        public static let handlerFailed = Code("handlerFailed")
        /// The peer broke the wire protocol.
        public static let protocolError = Code("protocolError")
        /// A frame exceeds the maximum frame length.
        public static let frameTooLarge = Code("frameTooLarge")
        /// The peer refused this connection (GOODBYE forbidden).
        public static let forbidden = Code("forbidden")
        /// The host refused this connection because it serves as many as it may (GOODBYE
        /// tooManyConnections); trying again later may succeed.
        public static let tooManyConnections = Code("tooManyConnections")
        /// A frame began and did not arrive in full within the receiver's frame deadline (GOODBYE
        /// frameTimeout): this side, or the peer, sent too slowly.
        public static let frameTimeout = Code("frameTimeout")
        /// The peer speaks another protocol version.
        public static let unsupportedVersion = Code("unsupportedVersion")
        /// A call did not get its reply in time.
        public static let timedOut = Code("timedOut")
        /// A channel name is empty or longer than 65,535 UTF-8 bytes.
        public static let invalidChannel = Code("invalidChannel")
        /// A socket or system call failed.
        public static let transport = Code("transport")
    }

    public var code: Code
    public var message: String
    /// The channel the failed message was on, when there was one. (Methods are the channels'
    /// concept: a channel reports a failed call as `ChannelError`, naming channel and method.)
    public var channel: String?

    public init(_ code: Code, _ message: String, channel: String? = nil) {
        self.code = code
        self.message = message
        self.channel = channel
    }

    public var description: String {
        let where_ = channel.map { " on channel '\($0)'" } ?? ""
        return "\(code)\(where_): \(message)"
    }
}

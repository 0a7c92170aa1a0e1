extension MessengerConnection {
    /// Settings for one session.
    public struct Options: Sendable {
        /// Free text sent as the peer name in this side's HELLO, e.g. `channelbridge 0.1 pid 4242`.
        /// Longer than 65,535 UTF-8 bytes is cut.
        public var name: String
        /// The largest frame this side accepts (the value of the length field). A larger incoming
        /// frame ends the session with GOODBYE `frameTooLarge`; a larger outgoing message is
        /// refused locally with `MessengerError.frameTooLarge` so that the session survives.
        public var maxFrameLength: Int

        public init(name: String = "channelbridge", maxFrameLength: Int = FrameDecoder.defaultMaxFrameLength) {
            self.name = name
            self.maxFrameLength = maxFrameLength
        }
    }
}

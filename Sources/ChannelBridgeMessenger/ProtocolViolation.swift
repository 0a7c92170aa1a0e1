/// A peer broke a framing or session rule. The session answers with GOODBYE `goodbyeCode` and
/// `reason`, then closes that connection only.
public struct ProtocolViolation: Error, Sendable, Hashable, CustomStringConvertible {
    /// Which rule was broken. Each code knows the GOODBYE code it is answered with.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        private let name: String
        /// The GOODBYE code this violation is answered with.
        public let goodbyeCode: GoodbyeCode

        private init(_ name: String, _ goodbyeCode: GoodbyeCode = .protocolError) {
            self.name = name
            self.goodbyeCode = goodbyeCode
        }

        public var description: String { name }

        // Framing (found by `FrameDecoder`).
        /// The length field exceeds the receiver's maximum frame length (checked before anything else).
        public static let frameTooLarge = Code("frameTooLarge", .frameTooLarge)
        /// The length field is 0, so there is no kind byte.
        public static let emptyFrame = Code("emptyFrame")
        /// The kind byte is not one of 0x01...0x08.
        public static let unknownKind = Code("unknownKind")
        /// The body ends before a field it must contain.
        public static let shortBody = Code("shortBody")
        /// A fixed-size body (CANCEL, PING, PONG) is longer than its fields.
        public static let trailingBytes = Code("trailingBytes")
        /// A HELLO body does not start with `CHBR`.
        public static let badMagic = Code("badMagic")
        /// A HELLO names a version this side cannot speak.
        public static let unsupportedVersion = Code("unsupportedVersion", .unsupportedVersion)
        /// A HELLO announces a maximum frame length below 16.
        public static let badMaxFrameLength = Code("badMaxFrameLength")
        /// A HELLO role byte other than 0 (client) or 1 (host).
        public static let unknownRole = Code("unknownRole")
        /// A channel name or peer name is not valid UTF-8.
        public static let invalidUTF8 = Code("invalidUTF8")
        /// A channel name of length 0.
        public static let emptyChannel = Code("emptyChannel")
        /// `payloadFlags` has bits other than bit 0 set.
        public static let unknownPayloadFlags = Code("unknownPayloadFlags")
        /// The null flag is set but the payload is not empty.
        public static let nullPayloadWithBytes = Code("nullPayloadWithBytes")
        /// A REQUEST with id 0.
        public static let zeroRequestID = Code("zeroRequestID")
        /// A REPLY status other than 0, 1 or 2.
        public static let unknownReplyStatus = Code("unknownReplyStatus")
        /// A REPLY with status 1 (null) and a non-empty payload.
        public static let nullReplyWithBytes = Code("nullReplyWithBytes")

        // Session (found by `MessengerConnection`).
        /// A frame other than HELLO (or GOODBYE) arrived before the peer's HELLO.
        public static let frameBeforeHello = Code("frameBeforeHello")
        /// A second HELLO on one session.
        public static let secondHello = Code("secondHello")
        /// The peer's HELLO announced the same role as this side (a client talking to a client).
        public static let wrongRole = Code("wrongRole")
        /// A REQUEST id that is already in flight from that peer.
        public static let duplicateRequestID = Code("duplicateRequestID")
    }

    public var code: Code
    /// Human-readable detail, sent as the GOODBYE reason.
    public var reason: String

    public init(_ code: Code, _ reason: String) {
        self.code = code
        self.reason = reason
    }

    /// The GOODBYE code this violation is answered with.
    public var goodbyeCode: GoodbyeCode { code.goodbyeCode }

    public var description: String { "\(code): \(reason)" }
}

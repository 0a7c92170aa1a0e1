/// A peer broke a framing or session rule. The session answers with GOODBYE `goodbyeCode` and
/// `reason`, then closes that connection only.
package struct ProtocolViolation: Error, Sendable, Hashable, CustomStringConvertible {
    /// Which rule was broken. Each code knows the GOODBYE code it is answered with.
    package struct Code: Sendable, Hashable, CustomStringConvertible {
        private let name: String
        /// The GOODBYE code this violation is answered with.
        package let goodbyeCode: GoodbyeCode

        private init(_ name: String, _ goodbyeCode: GoodbyeCode = .protocolError) {
            self.name = name
            self.goodbyeCode = goodbyeCode
        }

        package var description: String { name }

        // Framing (found by `FrameDecoder`).
        /// The length field exceeds the receiver's maximum frame length (checked before anything else).
        package static let frameTooLarge = Code("frameTooLarge", .frameTooLarge)
        /// The length field is 0, so there is no kind byte.
        package static let emptyFrame = Code("emptyFrame")
        /// The kind byte is not one of 0x01...0x08.
        package static let unknownKind = Code("unknownKind")
        /// The body ends before a field it must contain.
        package static let shortBody = Code("shortBody")
        /// A fixed-size body (CANCEL, PING, PONG) is longer than its fields.
        package static let trailingBytes = Code("trailingBytes")
        /// A HELLO body does not start with `CHBR`.
        package static let badMagic = Code("badMagic")
        /// A HELLO names a version this side cannot speak.
        package static let unsupportedVersion = Code("unsupportedVersion", .unsupportedVersion)
        /// A HELLO announces a maximum frame length below 16.
        package static let badMaxFrameLength = Code("badMaxFrameLength")
        /// A HELLO role byte other than 0 (client) or 1 (host).
        package static let unknownRole = Code("unknownRole")
        /// A channel name or peer name is not valid UTF-8.
        package static let invalidUTF8 = Code("invalidUTF8")
        /// A channel name of length 0.
        package static let emptyChannel = Code("emptyChannel")
        /// `payloadFlags` has bits other than bit 0 set.
        package static let unknownPayloadFlags = Code("unknownPayloadFlags")
        /// The null flag is set but the payload is not empty.
        package static let nullPayloadWithBytes = Code("nullPayloadWithBytes")
        /// A REQUEST with id 0.
        package static let zeroRequestID = Code("zeroRequestID")
        /// A REPLY status other than 0, 1 or 2.
        package static let unknownReplyStatus = Code("unknownReplyStatus")
        /// A REPLY with status 1 (null) and a non-empty payload.
        package static let nullReplyWithBytes = Code("nullReplyWithBytes")

        // Session (found by `MessengerConnection`).
        /// A frame other than HELLO (or GOODBYE) arrived before the peer's HELLO.
        package static let frameBeforeHello = Code("frameBeforeHello")
        /// A second HELLO on one session.
        package static let secondHello = Code("secondHello")
        /// The peer's HELLO announced the same role as this side (a client talking to a client).
        package static let wrongRole = Code("wrongRole")
        /// A REQUEST id that is already in flight from that peer.
        package static let duplicateRequestID = Code("duplicateRequestID")
    }

    package var code: Code
    /// Human-readable detail, sent as the GOODBYE reason.
    package var reason: String

    package init(_ code: Code, _ reason: String) {
        self.code = code
        self.reason = reason
    }

    /// The GOODBYE code this violation is answered with.
    package var goodbyeCode: GoodbyeCode { code.goodbyeCode }

    package var description: String { "\(code): \(reason)" }
}

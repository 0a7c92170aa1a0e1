/// Why a side ends a session, carried by a GOODBYE frame.
///
/// Version 1 defines codes 0 to 8. A receiver keeps any other value as it is, so that a newer
/// peer's code is still reported rather than treated as a protocol error.
public struct GoodbyeCode: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    public var rawValue: UInt16

    public init(rawValue: UInt16) { self.rawValue = rawValue }

    /// An ordinary end of the session.
    public static let normal = GoodbyeCode(rawValue: 0)
    /// The HELLO named a protocol version this side cannot speak.
    public static let unsupportedVersion = GoodbyeCode(rawValue: 1)
    /// A frame broke the framing or session rules.
    public static let protocolError = GoodbyeCode(rawValue: 2)
    /// A frame's length exceeded this side's maximum frame length.
    public static let frameTooLarge = GoodbyeCode(rawValue: 3)
    /// The peer's credentials were refused; sent as the first and only frame.
    public static let forbidden = GoodbyeCode(rawValue: 4)
    /// The host is ending.
    public static let shuttingDown = GoodbyeCode(rawValue: 5)
    /// The host serves as many connections as it may (or cannot start another); sent as the first
    /// and only frame. The client may try again once another connection has closed.
    public static let tooManyConnections = GoodbyeCode(rawValue: 6)
    /// A frame the peer had begun did not arrive in full within the receiver's frame deadline
    /// (wire protocol §4.10, rule 9); the slot it held is freed.
    public static let frameTimeout = GoodbyeCode(rawValue: 7)
    /// The process serving the session died by a fatal signal (a handler trapped); the reason
    /// names the signal and, when known, the channel and method that were running. The
    /// connection ends right after.
    public static let sessionCrashed = GoodbyeCode(rawValue: 8)

    public var description: String {
        switch rawValue {
        case 0: "normal"
        case 1: "unsupportedVersion"
        case 2: "protocolError"
        case 3: "frameTooLarge"
        case 4: "forbidden"
        case 5: "shuttingDown"
        case 6: "tooManyConnections"
        case 7: "frameTimeout"
        case 8: "sessionCrashed"
        default: "code \(rawValue)"
        }
    }
}

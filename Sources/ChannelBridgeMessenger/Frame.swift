/// One frame of the ChannelBridge wire protocol, version 1.
///
/// On the wire a frame is `u32 length · u8 kind · body` (little-endian; `length` counts the kind
/// byte and the body). `Protocol/wire-protocol.md` gives every body's layout. An application sees
/// frames in the peer's HELLO (`MessengerConnection.peerHello`) and, in tests, through a raw peer
/// (`InMemoryMessenger.RawPeer`); the package's `FrameEncoder` and `FrameDecoder` write and read them:
///
/// ```swift
/// var bytes: [UInt8] = []
/// FrameEncoder.encode(.ping(token: 7), into: &bytes)
/// var decoder = FrameDecoder()
/// decoder.append(bytes)
/// let frame = try decoder.next()   // .ping(token: 7)
/// ```
public enum Frame: Sendable, Hashable {
    /// The first frame each side sends.
    case hello(Hello)
    /// Asks the peer's handler on `channel`; answered by exactly one REPLY with the same id unless
    /// cancelled. `payload` is `nil` for a null payload, distinct from zero bytes.
    case request(id: UInt32, channel: String, payload: [UInt8]?)
    /// Answers the REQUEST with `id` that the receiver of this REPLY sent.
    case reply(id: UInt32, result: Reply)
    /// A one-way message on `channel`; never answered.
    case message(channel: String, payload: [UInt8]?)
    /// The requester no longer wants the reply to `id`.
    case cancel(id: UInt32)
    /// Asks for a PONG carrying the same token.
    case ping(token: UInt64)
    /// Answers a PING.
    case pong(token: UInt64)
    /// The sender ends the session; it sends nothing more except replies it still owes.
    case goodbye(code: GoodbyeCode, reason: String)

    /// The frame's kind byte.
    package var kind: Kind {
        switch self {
        case .hello: .hello
        case .request: .request
        case .reply: .reply
        case .message: .message
        case .cancel: .cancel
        case .ping: .ping
        case .pong: .pong
        case .goodbye: .goodbye
        }
    }
}

extension Frame {
    /// The kind byte that follows a frame's length.
    package enum Kind: UInt8, Sendable, Hashable, CaseIterable {
        case hello = 0x01
        case request = 0x02
        case reply = 0x03
        case message = 0x04
        case cancel = 0x05
        case ping = 0x06
        case pong = 0x07
        case goodbye = 0x08
    }

    /// The body of a HELLO frame.
    public struct Hello: Sendable, Hashable {
        /// The four bytes every HELLO body starts with: ASCII `CHBR`.
        package static let magic: [UInt8] = [0x43, 0x48, 0x42, 0x52]
        /// The only protocol version this implementation speaks.
        @usableFromInline package static let currentVersion: UInt16 = 1

        /// Flag bit 0: a u32 maximum frame length follows the peer name.
        package static let maxFrameLengthFlag: UInt16 = 0x0001

        package var version: UInt16
        /// Feature bits; receivers ignore bits they do not know. Bit 0 (`maxFrameLengthFlag`) is
        /// set by the encoder exactly when `maxFrameLength` is given.
        package var flags: UInt16
        /// Which end of the session the sender is.
        public var role: PeerRole
        /// Free text naming the sender, e.g. `channelbridge 0.1 pid 4242`; at most 65,535 UTF-8 bytes.
        public var peerName: String
        /// The largest frame the sender accepts, when it is not the protocol default (64 MiB); at
        /// least 16. Its peer sends no longer frame (wire protocol §2.1).
        package var maxFrameLength: Int?

        /// A HELLO; the encoder sets bit 0 of `flags` exactly when `maxFrameLength` is given.
        public init(
            version: UInt16 = Hello.currentVersion, flags: UInt16 = 0, role: PeerRole, peerName: String,
            maxFrameLength: Int? = nil
        ) {
            self.version = version
            self.flags = flags
            self.role = role
            self.peerName = peerName
            self.maxFrameLength = maxFrameLength
        }

        /// The smallest maximum frame length a side may announce.
        package static let minimumMaxFrameLength = 16
    }

    /// What a REPLY carries: its status byte and payload together, so that a null reply can never
    /// carry bytes.
    public enum Reply: Sendable, Hashable {
        /// Status 0: the handler's reply bytes (possibly empty).
        case bytes([UInt8])
        /// Status 1: a null reply — no handler on the channel, or the handler answered
        /// "not implemented".
        case null
        /// Status 2: the handler failed outside the codec's error envelope; a UTF-8 diagnostic.
        case failure(String)

        /// The status byte on the wire.
        package var status: UInt8 {
            switch self {
            case .bytes: 0
            case .null: 1
            case .failure: 2
            }
        }
    }
}

extension Frame {
    /// Bit 0 of `payloadFlags`: the payload is null (and must be empty).
    static let nullPayloadFlag: UInt8 = 0x01
}

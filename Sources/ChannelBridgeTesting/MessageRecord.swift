public import ChannelBridgeCodec
public import ChannelBridgeMessenger

/// One message that crossed a `TestMessenger`, as its `MessageRecorder` saw it: who sent it, on
/// which channel, its bytes, what they decode to, and the reply.
///
/// ```swift
/// let record = test.recorder.records(on: "example/greeter").last!
/// record.direction        // .received: the test called the code under test
/// record.call?.method     // "greet"
/// record.reply?.envelope  // .success("Hello, Ada!")
/// ```
public struct MessageRecord: Sendable, Hashable, CustomStringConvertible {
    /// Seen from the code under test.
    public enum Direction: Sendable, Hashable, CustomStringConvertible {
        /// The code under test sent it; the test's side received it.
        case sent
        /// The test's side sent it to the code under test.
        case received

        public var description: String { self == .sent ? "sent" : "received" }
    }

    /// How it was sent.
    public enum Kind: Sendable, Hashable, CustomStringConvertible {
        /// A request that gets a reply (`BinaryMessenger.send`): method calls, `listen`, `cancel`.
        case request
        /// A one-way message (`BinaryMessenger.post`): event-channel events and end of stream.
        case message

        public var description: String { self == .request ? "request" : "message" }
    }

    /// How a request ended, as its sender saw it.
    public enum Reply: Sendable, Hashable, CustomStringConvertible {
        /// A reply with a payload; `envelope` is the payload decoded with the channel's codec, `nil`
        /// when it does not decode as one (a `BasicMessageChannel` reply, say).
        case payload([UInt8], envelope: MethodEnvelope?)
        /// A null reply: no handler on the channel, or "not implemented".
        case null
        /// The request failed: the handler failed (`handlerFailed`, REPLY status 2), the connection
        /// ended first (`connectionClosed`), or it was refused before it was sent.
        case failed(MessengerError)
        /// The sender withdrew the request (its task was cancelled or its call timed out).
        case cancelled

        /// The decoded reply envelope: the success value or the `MethodError`.
        public var envelope: MethodEnvelope? {
            if case .payload(_, let envelope) = self { return envelope }
            return nil
        }

        /// The reply's bytes, `nil` unless it is a `.payload`.
        public var bytes: [UInt8]? {
            if case .payload(let bytes, _) = self { return bytes }
            return nil
        }

        public var description: String {
            switch self {
            case .payload(let bytes, let envelope?): return "\(envelope) [\(Hex.encode(bytes))]"
            case .payload(let bytes, nil): return "[\(Hex.encode(bytes))]"
            case .null: return "null reply"
            case .failed(let error): return "failed: \(error)"
            case .cancelled: return "cancelled"
            }
        }
    }

    /// Position in the recorder, from 1, in the order messages were sent.
    public let sequence: Int
    public let channel: String
    public let direction: Direction
    public let kind: Kind
    /// The bytes sent; `nil` for a null payload (an end of stream, for one).
    public let payload: [UInt8]?
    /// For a request: the payload decoded as a method call with the channel's codec, when it
    /// decodes as one.
    public let call: MethodCall?
    /// For a one-way message: the payload decoded as an envelope with the channel's codec, when it
    /// decodes as one (event channels send each event as an envelope).
    public let event: MethodEnvelope?
    /// For a request: how it ended; `nil` while it waits for its reply, and for messages.
    public internal(set) var reply: Reply?

    init(
        sequence: Int, channel: String, direction: Direction, kind: Kind, payload: [UInt8]?,
        call: MethodCall?, event: MethodEnvelope?
    ) {
        self.sequence = sequence
        self.channel = channel
        self.direction = direction
        self.kind = kind
        self.payload = payload
        self.call = call
        self.event = event
    }

    /// The called method, for a request that decodes as a method call.
    public var method: String? { call?.method }

    /// Whether this is an event channel's end of stream: a one-way message with a null payload.
    public var isEndOfStream: Bool { kind == .message && payload == nil }

    /// One line, e.g. `#2 sent request example/greeter greet({"name": "Ada"}) -> success("Hello, Ada!") [...]`.
    public var description: String {
        var text = "#\(sequence) \(direction) \(kind) \(channel) "
        if let call {
            text += "\(call.method)(\(call.arguments))"
        } else if let event {
            text += "event \(event)"
        } else if let payload {
            text += "[\(Hex.encode(payload))]"
        } else {
            text += kind == .message ? "end of stream" : "null"
        }
        if kind == .request { text += " -> " + (reply.map(String.init(describing:)) ?? "(no reply yet)") }
        return text
    }
}

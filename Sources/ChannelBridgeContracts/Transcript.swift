package import ChannelBridgeCodec

/// A channel contract: the interactions of a session between a client and a host, in order, as
/// `Protocol/transcript.md` states them. Read one with `Transcript(json:)` or
/// `Transcript(contentsOfFile:)`; `MockHost` serves it, `channelbridge verify` checks a host
/// against it.
///
/// ```swift
/// let transcript = try Transcript(json: text)
/// transcript.interactions.count
/// ```
public struct Transcript: Sendable {
    /// What a channel is and how its payloads are encoded.
    public struct Channel: Sendable, Hashable {
        public enum Kind: String, Sendable, Hashable { case method, event, message }
        public enum Codec: String, Sendable, Hashable { case standard, json }
        /// §3: a call matches the channel's first interaction not yet made (`sequence`), or any.
        public enum Order: String, Sendable, Hashable { case sequence, any }

        public var kind: Kind
        public var codec: Codec
        public var order: Order
    }

    /// Which side began an interaction.
    public enum Side: String, Sendable, Hashable { case client, host }

    /// What a REPLY (or an event) is to be: success with a value, an error envelope, or a null
    /// reply ("not implemented").
    package enum ReplyPattern: Sendable, Hashable {
        case success(ValuePattern)
        case error(code: String, message: ValuePattern, details: ValuePattern)
        case notImplemented
    }

    /// What an interaction is (§2).
    package enum Action: Sendable, Hashable {
        case call(method: String, arguments: ValuePattern, reply: ReplyPattern)
        case stream(arguments: ValuePattern, reply: ReplyPattern, events: [ReplyPattern], end: Bool)
        case cancel(arguments: ValuePattern, reply: ReplyPattern)
        /// A BasicMessageChannel request; `reply` `.exact(.null)` is also what a null reply matches.
        case send(message: ValuePattern, reply: ValuePattern)
        case post(message: ValuePattern)
    }

    /// One interaction, with its place in the document.
    package struct Interaction: Sendable, Hashable {
        package var index: Int
        package var channel: String
        package var from: Side
        package var action: Action
        /// The exact payload of the interaction's first frame, when the transcript gives it.
        package var hex: [UInt8]?
        /// The exact payload of the REPLY, when the transcript gives it.
        package var replyHex: [UInt8]?
        /// Preference values the host must hold before this interaction (§5), in order.
        package var given: [ProviderStates.Preference] = []

        /// The method a call carries on the wire: the call's, `listen` or `cancel`; `nil` for messages.
        package var method: String? {
            switch action {
            case .call(let method, _, _): return method
            case .stream: return "listen"
            case .cancel: return "cancel"
            case .send, .post: return nil
            }
        }

        /// The arguments (or message) the side that begins it sends.
        package var arguments: ValuePattern {
            switch action {
            case .call(_, let arguments, _), .stream(let arguments, _, _, _), .cancel(let arguments, _):
                return arguments
            case .send(let message, _), .post(let message): return message
            }
        }

        /// `M ARGS` (or `message ARGS`), for reports.
        package var summary: String {
            (method ?? (isPost ? "post" : "message")) + " " + arguments.text
        }

        package var isPost: Bool {
            if case .post = action { return true }
            return false
        }
    }

    /// Provider states (§5): what the host must hold before the first interaction (and, for
    /// preferences, before any one interaction: `Interaction.given`).
    package struct ProviderStates: Sendable, Hashable {
        package struct Preference: Sendable, Hashable {
            package var appGroup: String
            package var key: String
            package var value: StandardValue
        }

        package var preferences: [Preference] = []
        /// The items in `extension-host --items` form, as JSON, `nil` when not given.
        package var inputItems: JSONValue?

        package var isEmpty: Bool { preferences.isEmpty && inputItems == nil }
    }

    public var about: String?
    package var channels: [String: Channel]
    package var given: ProviderStates
    package var interactions: [Interaction]

    /// The number of interactions.
    public var interactionCount: Int { interactions.count }

    /// The channel a name stands for, when the transcript lists it.
    public func channel(named name: String) -> Channel? { channels[name] }
}

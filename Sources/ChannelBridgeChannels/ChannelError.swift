public import ChannelBridgeCodec
public import ChannelBridgeMessenger

/// A channel could not complete a call: the other side has no handler for it or its handler
/// failed, its reply could not be decoded, it did not answer in time, or the connection ended first.
///
/// Every channel error names the channel and, for method calls, the method, because the person
/// reading it usually has to find the handler on the other side of a socket.
///
/// ```swift
/// do {
///     _ = try await channel.invokeMethod("getVersion")
/// } catch let error as ChannelError where error.code == .notImplemented {
///     // the other side has no handler for "getVersion"
/// } catch let error as ChannelError where error.code == .connectionClosed {
///     // the session ended before the reply came; `error.messengerError` is the messenger's account
/// }
/// ```
public struct ChannelError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong; extensible without breaking callers that switch on known codes.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        private let name: String
        private init(_ name: String) { self.name = name }
        public var description: String { name }

        /// The other side answered with a null reply: no handler on the channel, or the handler
        /// answered "not implemented" (Flutter's `MissingPluginException`).
        public static let notImplemented = Code("notImplemented")
        /// A reply could not be decoded with the channel's codec (or, for a typed call, as its type).
        public static let malformedReply = Code("malformedReply")
        /// An incoming message could not be decoded with the channel's codec (or as the typed handler's type).
        public static let malformedMessage = Code("malformedMessage")
        /// An event on an event channel could not be decoded as an envelope (or as a typed stream's type).
        public static let malformedEvent = Code("malformedEvent")
        /// The outgoing call or message could not be encoded with the channel's codec (or as Standard values).
        public static let unencodable = Code("unencodable")
        /// The call got no reply within its timeout; the request was withdrawn.
        public static let timedOut = Code("timedOut")
        /// The consumer of an event stream fell too far behind: more bytes of events waited to be
        /// consumed than the stream's buffer allows; the stream was ended and cancelled.
        public static let streamOverflow = Code("streamOverflow")

        // The messenger's failures, for a call on this channel (`messengerError` has the details).

        /// The connection ended before the reply arrived (or had ended before the call).
        public static let connectionClosed = Code("connectionClosed")
        /// The other side's handler failed outside the codec (REPLY status 2); `message` is its
        /// diagnostic.
        public static let handlerFailed = Code("handlerFailed")
        /// The call or message makes a frame larger than this side or the peer accepts.
        public static let frameTooLarge = Code("frameTooLarge")
        /// The channel name is empty or longer than 65,535 UTF-8 bytes.
        public static let invalidChannel = Code("invalidChannel")

        /// The code for a messenger failure: the messenger's code of the same name.
        static func messenger(_ code: MessengerError.Code) -> Code { Code(code.description) }
    }

    public var code: Code
    public var message: String
    /// The channel the call or message was on.
    public var channel: String
    /// The method, for method calls and event-channel `listen` / `cancel`.
    public var method: String?
    /// The codec's own error, when a codec failure caused this one.
    public var codecError: CodecError?
    /// The messenger's own error, when the messenger failed the call (codes `connectionClosed`,
    /// `handlerFailed`, `frameTooLarge`, `invalidChannel`, ...).
    public var messengerError: MessengerError?

    public init(
        _ code: Code, _ message: String, channel: String, method: String? = nil, codecError: CodecError? = nil,
        messengerError: MessengerError? = nil
    ) {
        self.code = code
        self.message = message
        self.channel = channel
        self.method = method
        self.codecError = codecError
        self.messengerError = messengerError
    }

    /// The messenger failed a call or message on `channel`: the same code and message, now naming
    /// the channel and the method, which the messenger (bytes only) does not know.
    public init(_ messengerError: MessengerError, channel: String, method: String? = nil) {
        self.init(
            .messenger(messengerError.code), messengerError.message, channel: messengerError.channel ?? channel,
            method: method, messengerError: messengerError)
    }

    public var description: String {
        var where_ = " on channel '\(channel)'"
        if let method { where_ += " (method '\(method)')" }
        return "\(code)\(where_): \(message)"
    }
}

extension ChannelError {
    static func notImplemented(channel: String, method: String) -> ChannelError {
        ChannelError(
            .notImplemented, "No implementation found for method \(method) on channel \(channel)",
            channel: channel, method: method)
    }

    static func timedOut(channel: String, method: String?, after timeout: Duration) -> ChannelError {
        let what = method.map { "method \($0)" } ?? "message"
        return ChannelError(
            .timedOut, "No reply to \(what) on channel \(channel) within \(timeout)",
            channel: channel, method: method)
    }
}

/// Handles one incoming message on a channel. `message` is `nil` for a null payload (distinct from
/// zero bytes). Return the reply bytes, or `nil` for a null reply ("no handler / not implemented"
/// in Flutter's terms). A thrown error is reported to the requester as a handler failure.
public typealias BinaryMessageHandler = @Sendable (_ message: [UInt8]?) async throws -> [UInt8]?

/// Identifies one installed handler. Removing it never removes a handler installed later on the
/// same channel (Flutter Darwin's `FlutterBinaryMessengerConnection`).
public struct MessageHandlerToken: Sendable, Hashable {
    public let channel: String
    public let id: UInt64

    public init(channel: String, id: UInt64) {
        self.channel = channel
        self.id = id
    }
}

/// Bytes in, bytes out, by channel name: the layer under every channel. No codecs here.
///
/// The requirements are Flutter's platform-side `BinaryMessenger` (iOS `FlutterBinaryMessenger`,
/// Android `BinaryMessenger`): send with a reply, send without one, set a message handler and
/// clean it up by its connection token; plus `onClose`, because a session here can end (Flutter's
/// engine outlives its channels) and every stream and call on it must then end too.
///
/// ```swift
/// let reply = try await messenger.send(onChannel: "channelbridge/echo", message: [1, 2, 3])
/// ```
///
/// The package's own messengers also adopt `FastPathMessenger` (package API: segmented sends, one
/// handler shape that answers on the reader thread, in place or later, flow control); a messenger written outside
/// the package gets the same behaviour through these requirements alone, without the fast paths.
public protocol BinaryMessenger: AnyObject, Sendable {
    /// Sends a request and waits for its reply; `nil` is a null reply. Throws `MessengerError` when
    /// the connection ends first (code `connectionClosed`, naming the channel) or the remote handler
    /// failed; cancelling the calling task withdraws the request.
    nonisolated(nonsending) func send(onChannel channel: String, message: [UInt8]?) async throws -> [UInt8]?

    /// Sends a one-way message that is never answered (Flutter's `sendOnChannel:message:` without
    /// a reply). It never waits: a producer of many messages bounds them itself (an `EventSink`
    /// does, wire protocol §4.10).
    func post(onChannel channel: String, message: [UInt8]?) throws

    /// Installs (or, with `nil`, removes) the handler for a channel, replacing any earlier one.
    /// Messages on one channel reach the handler in arrival order.
    ///
    /// Must not call back into the caller (channels call it while holding their own lock; see
    /// `HandlerSlot`).
    @discardableResult
    func setMessageHandler(onChannel channel: String, _ handler: BinaryMessageHandler?) -> MessageHandlerToken

    /// Removes the handler installed with `token`, if it is still the current one (Flutter's
    /// `cleanUpConnection:`). Must not call back into the caller either.
    func removeMessageHandler(_ token: MessageHandlerToken)

    /// Runs `callback` once when this messenger's connection ends (at once if it already has).
    func onClose(_ callback: @escaping @Sendable (MessengerError) -> Void)
}

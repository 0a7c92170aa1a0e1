/// Handles one incoming message on a channel. `message` is `nil` for a null payload (distinct from
/// zero bytes). Return the reply bytes, or `nil` for a null reply ("no handler / not implemented"
/// in Flutter's terms). A thrown error is reported to the requester as a handler failure.
public typealias BinaryMessageHandler = @Sendable (_ message: [UInt8]?) async throws -> [UInt8]?

/// A `BinaryMessageHandler` whose reply comes as arrays to be sent back to back, so that a large
/// part of it (a big byte value) need not be copied into one reply buffer.
public typealias SegmentedMessageHandler = @Sendable (_ message: [UInt8]?) async throws -> MessageSegments?

/// A handler that answers without suspending (see `setSynchronousMessageHandler`).
public typealias SynchronousMessageHandler = @Sendable (_ message: [UInt8]?) throws -> MessageSegments?

/// Identifies one installed handler. Removing it never removes a handler installed later on the
/// same channel (Flutter Darwin's connection id).
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
/// ```swift
/// let reply = try await messenger.send(onChannel: "channelbridge/echo", message: [1, 2, 3])
/// ```
public protocol BinaryMessenger: AnyObject, Sendable {
    /// Sends a request and waits for its reply; `nil` is a null reply. Throws `MessengerError` when
    /// the connection ends first (code `connectionClosed`, naming the channel) or the remote handler
    /// failed; cancelling the calling task withdraws the request.
    nonisolated(nonsending) func send(onChannel channel: String, message: [UInt8]?) async throws -> [UInt8]?

    /// Sends a request whose bytes are `segments` back to back, and waits for its reply. The peer
    /// sees one message; a transport may send the arrays with scatter-gather I/O instead of
    /// copying them into one frame. By default they are joined and sent with
    /// `send(onChannel:message:)`.
    func send(onChannel channel: String, segments: MessageSegments) async throws -> [UInt8]?

    /// Sends a one-way message that is never answered. It never waits: a producer of many
    /// messages bounds them itself (an `EventSink` does, wire protocol §4.10).
    func post(onChannel channel: String, message: [UInt8]?) throws

    /// Installs (or, with `nil`, removes) the handler for a channel, replacing any earlier one.
    /// Messages on one channel reach the handler in arrival order.
    @discardableResult
    func setMessageHandler(onChannel channel: String, _ handler: BinaryMessageHandler?) -> MessageHandlerToken

    /// Installs (or removes) a handler whose replies come in segments (see
    /// `send(onChannel:segments:)`). By default the segments are joined.
    @discardableResult
    func setSegmentedMessageHandler(onChannel channel: String, _ handler: SegmentedMessageHandler?) -> MessageHandlerToken

    /// Installs (or removes) a handler that answers without suspending. A transport may run it
    /// right where it reads the request, with no task started for it. By default it is installed
    /// as a segmented handler.
    @discardableResult
    func setSynchronousMessageHandler(onChannel channel: String, _ handler: SynchronousMessageHandler?) -> MessageHandlerToken

    /// Removes the handler installed with `token`, if it is still the current one.
    func removeMessageHandler(_ token: MessageHandlerToken)

    /// Runs `callback` once when this messenger's connection ends (at once if it already has).
    func onClose(_ callback: @escaping @Sendable (MessengerError) -> Void)
}

extension BinaryMessenger {
    public func send(onChannel channel: String, segments: MessageSegments) async throws -> [UInt8]? {
        try await send(onChannel: channel, message: segments.joined)
    }

    @discardableResult
    public func setSegmentedMessageHandler(onChannel channel: String, _ handler: SegmentedMessageHandler?) -> MessageHandlerToken {
        guard let handler else { return setMessageHandler(onChannel: channel, nil) }
        return setMessageHandler(onChannel: channel) { message in try await handler(message)?.joined }
    }

    @discardableResult
    public func setSynchronousMessageHandler(onChannel channel: String, _ handler: SynchronousMessageHandler?) -> MessageHandlerToken {
        guard let handler else { return setSegmentedMessageHandler(onChannel: channel, nil) }
        return setSegmentedMessageHandler(onChannel: channel) { message in try handler(message) }
    }
}

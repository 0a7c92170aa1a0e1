/// What a package handler answers: its reply in segments, and work to run once that reply has been
/// queued for writing.
///
/// `afterReply` is how "the `listen` reply goes out before the stream's first event" and "the call
/// that ended the extension request is answered before the host's GOODBYE" are ordered by
/// construction: the messenger runs it right after handing the reply to its transport, on the same
/// task, so anything it writes is queued behind the reply.
package struct HandlerReply: Sendable {
    /// The reply; `nil` is a null reply.
    package var reply: MessageSegments?
    package var afterReply: (@Sendable () -> Void)?

    package init(_ reply: MessageSegments?, afterReply: (@Sendable () -> Void)? = nil) {
        self.reply = reply
        self.afterReply = afterReply
    }
}

/// A handler whose reply comes as arrays to be sent back to back (a large part of it, a big byte
/// value, is not copied into one reply buffer), with work to run after the reply is queued.
package typealias SegmentedMessageHandler = @Sendable (_ message: [UInt8]?) async throws -> HandlerReply

/// A handler that answers without suspending. A messenger may run it right where it reads the
/// request, with no task started for it.
package typealias SynchronousMessageHandler = @Sendable (_ message: [UInt8]?) throws -> MessageSegments?

/// The fast paths of the package's messengers, kept out of the public `BinaryMessenger`: segmented
/// sends and replies, synchronous handlers, work after a reply, flow control and frame limits.
///
/// Every messenger in the package that wraps another (the host's
/// `TracingMessenger`, the testing kit's messengers) adopts it and forwards each requirement to the
/// messenger it wraps; there are no default implementations, so a wrapper cannot lose a fast path
/// silently. Channels look it up once (`BinaryMessenger.fastPath`) and otherwise use the public
/// requirements (`sendSegments`, `installSegmentedHandler`, `installSynchronousHandler` below).
package protocol FastPathMessenger: BinaryMessenger {
    /// Sends a request whose bytes are `segments` back to back, and waits for its reply. The peer
    /// sees one message; a transport may send the arrays with scatter-gather I/O.
    func send(onChannel channel: String, segments: MessageSegments) async throws -> [UInt8]?

    /// Installs (or removes) a handler whose replies come in segments, with work after the reply.
    @discardableResult
    func setSegmentedMessageHandler(
        onChannel channel: String, _ handler: SegmentedMessageHandler?
    ) -> MessageHandlerToken

    /// Installs (or removes) a handler that answers without suspending.
    @discardableResult
    func setSynchronousMessageHandler(
        onChannel channel: String, _ handler: SynchronousMessageHandler?
    ) -> MessageHandlerToken

    /// Installs (or removes) a handler that answers at once when it can, in a task when it cannot.
    @discardableResult
    func setImmediateMessageHandler(
        onChannel channel: String, _ handler: ImmediateMessageHandler?
    ) -> MessageHandlerToken

    /// The connection's outbound flow state, when its transport has one.
    var outboundFlow: OutboundFlow? { get }

    /// The largest frame this side may send, when the messenger knows it.
    var frameLimit: FrameLimit? { get }

    /// The connection that may serve this messenger's calls and answer its channels' requests in
    /// place directly, past this messenger: the connection itself, or what a wrapper that adds
    /// nothing per message forwards. `nil` for a messenger that must see every message (a
    /// tracing or recording one) or has no connection.
    var directConnection: MessengerConnection? { get }
}

extension BinaryMessenger {
    /// This messenger's fast paths, when it is one of the package's (or wraps one and forwards).
    package var fastPath: (any FastPathMessenger)? { self as? any FastPathMessenger }

    /// Sends `segments` on the fast path, or joined with `send(onChannel:message:)`.
    nonisolated(nonsending) package func sendSegments(
        onChannel channel: String, _ segments: MessageSegments
    ) async throws -> [UInt8]? {
        if let fast = fastPath { return try await fast.send(onChannel: channel, segments: segments) }
        return try await send(onChannel: channel, message: segments.joined)
    }

    /// Installs `handler` on the fast path, or as a plain handler. A messenger outside the package
    /// cannot say when a reply has been queued: there `afterReply` runs as the handler returns,
    /// before its reply is sent (as in Flutter's own embedders, where events a stream handler sends
    /// from `onListen` go out before the `listen` reply).
    @discardableResult
    package func installSegmentedHandler(
        onChannel channel: String, _ handler: SegmentedMessageHandler?
    ) -> MessageHandlerToken {
        if let fast = fastPath { return fast.setSegmentedMessageHandler(onChannel: channel, handler) }
        guard let handler else { return setMessageHandler(onChannel: channel, nil) }
        return setMessageHandler(onChannel: channel) { message in
            let answer = try await handler(message)
            answer.afterReply?()
            return answer.reply?.joined
        }
    }

    /// Installs `handler` on the fast path, or as a plain handler.
    @discardableResult
    package func installSynchronousHandler(
        onChannel channel: String, _ handler: SynchronousMessageHandler?
    ) -> MessageHandlerToken {
        if let fast = fastPath { return fast.setSynchronousMessageHandler(onChannel: channel, handler) }
        guard let handler else { return setMessageHandler(onChannel: channel, nil) }
        return setMessageHandler(onChannel: channel) { message in try handler(message)?.joined }
    }

    /// Installs `handler` on the fast path, or as a plain handler (which always runs in a task).
    @discardableResult
    package func installImmediateHandler(
        onChannel channel: String, _ handler: ImmediateMessageHandler?
    ) -> MessageHandlerToken {
        if let fast = fastPath { return fast.setImmediateMessageHandler(onChannel: channel, handler) }
        guard let handler else { return setMessageHandler(onChannel: channel, nil) }
        return setMessageHandler(onChannel: channel) { message in
            let answer = try await handler(message).reply()
            answer.afterReply?()
            return answer.reply?.joined
        }
    }
}

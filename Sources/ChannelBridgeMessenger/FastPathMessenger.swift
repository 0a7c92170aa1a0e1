package import ChannelBridgeBytes

/// The fast paths of the package's messengers, kept out of the public `BinaryMessenger`: sends of a
/// `Payload` (a lent buffer's bytes, segments), the one package handler shape (`MessageHandler`:
/// replies written in place, as a payload of their own or later, with work after the reply), flow
/// control and frame limits.
///
/// Every messenger in the package that wraps another (the host's
/// `TracingMessenger`, the testing kit's messengers) adopts it and forwards each requirement to the
/// messenger it wraps; there are no default implementations, so a wrapper cannot lose a fast path
/// silently. Channels look it up once (`BinaryMessenger.fastPath`) and otherwise use the public
/// requirements (`sendPayload`, `installMessageHandler` fall back to them).
package protocol FastPathMessenger: BinaryMessenger {
    /// Sends a request whose bytes are `payload`, and waits for its reply. The peer sees one
    /// message; a transport may send a payload's segments with scatter-gather I/O.
    func send(onChannel channel: String, payload: Payload) async throws -> [UInt8]?

    /// Installs (or, with `nil`, removes) the handler for `channel`, replacing any earlier one. A
    /// MESSAGE on its channel reaches it too, its answer ignored. With `mayAnswerLater`, the
    /// handler may answer `.later` (its requests then hold a handler slot and an owed entry as a
    /// handler in a task does, unless answered at once on the in-place route); without it, it is
    /// always answered where it was read. With `splitter`, a large request payload it picks reaches
    /// the handler in two parts (`HandlerMessage.tail`); a messenger that does not split payloads
    /// ignores it.
    @discardableResult
    func setMessageHandler(
        onChannel channel: String, _ handler: MessageHandler?, mayAnswerLater: Bool, splitter: PayloadSplitter?
    ) -> MessageHandlerToken

    /// The connection's outbound flow state, when its transport has one.
    var outboundFlow: OutboundFlow? { get }

    /// The largest frame this side may send, when the messenger knows it.
    var frameLimit: FrameLimit? { get }

    /// The connection that may serve this messenger's calls directly, past this messenger: the
    /// connection itself, or what a wrapper that adds nothing per message forwards. `nil` for a
    /// messenger that must see every message (a tracing or recording one) or has no connection.
    var directConnection: MessengerConnection? { get }
}

extension BinaryMessenger {
    /// This messenger's fast paths, when it is one of the package's (or wraps one and forwards).
    package var fastPath: (any FastPathMessenger)? { self as? any FastPathMessenger }

    /// Sends `payload` on the fast path, or as one array with `send(onChannel:message:)`.
    nonisolated(nonsending) package func sendPayload(
        onChannel channel: String, _ payload: Payload
    ) async throws -> [UInt8]? {
        if let fast = fastPath { return try await fast.send(onChannel: channel, payload: payload) }
        return try await send(onChannel: channel, message: payload.array)
    }
}

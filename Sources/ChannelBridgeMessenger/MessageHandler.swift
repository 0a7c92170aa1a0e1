import ChannelBridgeBytes

/// The package's one handler shape: every handler a package messenger runs for a channel (a
/// method call answered at once or in a task, an event stream's `listen`, a test double's) has
/// it, and `FastPathMessenger.setMessageHandler(onChannel:_:mayAnswerLater:splitter:)` installs it.
///
/// It is called as the request (or MESSAGE) is read, without suspending, and answers in one of
/// three ways (`HandlerAnswer`): at once by writing its reply over `reply`, a buffer the messenger
/// lends and reuses (`StandardMethodCodec.encodeSuccessEnvelope(_:reusing:)` writes there), so a
/// request and its reply cost no array of their own; at once with a `Payload` of its own (a large
/// byte value kept in its own array, an error envelope); or later, with work the messenger runs in
/// a task, which may also ask for work after its reply is queued (`HandlerReply.afterReply`). Only a handler
/// installed with `mayAnswerLater` answers later; it then holds a handler slot and an owed entry
/// while that work runs. It must not block: the messenger reads nothing else meanwhile.
///
/// `message` is valid only during the call (see `HandlerMessage`); `reply` arrives with the storage
/// earlier replies left in it, its bytes being room to write over.
package typealias MessageHandler =
    @Sendable (_ message: HandlerMessage, _ reply: inout [UInt8]) throws -> HandlerAnswer

extension BinaryMessenger {
    /// Installs `handler` on the fast path, or, on a messenger outside the package, as a plain
    /// handler that runs it in a task with a reply buffer of its own. Such a messenger cannot say
    /// when a reply has been queued: there `afterReply` runs as the handler returns, before its
    /// reply is sent (as in Flutter's own embedders, where events a stream handler sends from
    /// `onListen` go out before the `listen` reply).
    @discardableResult
    package func installMessageHandler(
        onChannel channel: String, _ handler: MessageHandler?, mayAnswerLater: Bool,
        splitter: PayloadSplitter? = nil
    ) -> MessageHandlerToken {
        if let fast = fastPath {
            return fast.setMessageHandler(
                onChannel: channel, handler, mayAnswerLater: mayAnswerLater, splitter: splitter)
        }
        guard let handler else { return setMessageHandler(onChannel: channel, nil) }
        return setMessageHandler(onChannel: channel) { message in
            let answer = try await HandlerReply(answering: message, with: handler)
            answer.afterReply?()
            return answer.reply?.array
        }
    }
}

import ChannelBridgeMessenger
import ChannelBridgePlatform

/// The messenger handler one channel object installed, kept by token so that removing it never
/// removes a handler that another object installed later on the same channel name.
final class HandlerSlot: Sendable {
    private let token = LockedValue<MessageHandlerToken?>(nil)

    /// Installs `handler` (or removes this slot's handler, for `nil`) and returns the token that was
    /// replaced, if any.
    @discardableResult
    func install(
        _ handler: BinaryMessageHandler?, on messenger: any BinaryMessenger, channel: String
    ) -> MessageHandlerToken? {
        install(on: messenger, channel: channel, removing: handler == nil) {
            messenger.setMessageHandler(onChannel: channel, handler)
        }
    }

    /// Installs `handler`, the messenger's one handler shape (see `MessageHandler`).
    @discardableResult
    func install(
        _ handler: @escaping MessageHandler, mayAnswerLater: Bool, splitter: PayloadSplitter? = nil,
        on messenger: any BinaryMessenger, channel: String
    ) -> MessageHandlerToken? {
        install(on: messenger, channel: channel, removing: false) {
            messenger.installMessageHandler(
                onChannel: channel, handler, mayAnswerLater: mayAnswerLater, splitter: splitter)
        }
    }

    /// Installs a handler that always runs in a task, on the request as an array of its own (the
    /// one it was received into when it has one, not a copy), with work after its reply.
    @discardableResult
    func install(
        inTask work: @escaping @Sendable (_ message: [UInt8]?) async throws -> HandlerReply,
        on messenger: any BinaryMessenger, channel: String
    ) -> MessageHandlerToken? {
        install(InTaskHandler.make(work), mayAnswerLater: true, on: messenger, channel: channel)
    }

    private func install(
        on messenger: any BinaryMessenger, channel: String, removing: Bool,
        _ setHandler: () -> MessageHandlerToken
    ) -> MessageHandlerToken? {
        // The messenger call runs under the lock so that two concurrent installs on one channel
        // object leave the token of the handler that the messenger actually kept.
        // Lock order: this slot's lock, then the messenger's. Safe because a messenger never calls
        // back into a channel from setMessageHandler / removeMessageHandler (a `BinaryMessenger`
        // requirement, written on the protocol), so nothing here can wait for this lock.
        token.withLock { token in
            let previous = token
            if !removing {
                token = setHandler()
            } else {
                if let previous { messenger.removeMessageHandler(previous) }
                token = nil
            }
            return previous
        }
    }
}

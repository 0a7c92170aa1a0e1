import ChannelBridgeMessenger
import Synchronization

/// The messenger handler one channel object installed, kept by token so that removing it never
/// removes a handler that another object installed later on the same channel name.
final class HandlerSlot: Sendable {
    private let token = Mutex<MessageHandlerToken?>(nil)

    /// Installs `handler` (or removes this slot's handler, for `nil`) and returns the token that was
    /// replaced, if any.
    @discardableResult
    func install(_ handler: BinaryMessageHandler?, on messenger: any BinaryMessenger, channel: String) -> MessageHandlerToken? {
        // The messenger call runs under the lock so that two concurrent installs on one channel
        // object leave the token of the handler that the messenger actually kept. The messenger
        // never calls back into a channel from setMessageHandler, so this cannot deadlock.
        token.withLock { token in
            let previous = token
            if let handler {
                token = messenger.setMessageHandler(onChannel: channel, handler)
            } else {
                if let previous { messenger.removeMessageHandler(previous) }
                token = nil
            }
            return previous
        }
    }
}

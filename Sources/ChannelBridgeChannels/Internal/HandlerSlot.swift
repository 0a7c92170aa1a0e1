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

    /// Installs a handler that replies in segments (or removes this slot's handler, for `nil`).
    @discardableResult
    func install(
        segmented handler: SegmentedMessageHandler?, on messenger: any BinaryMessenger,
        channel: String
    ) -> MessageHandlerToken? {
        install(on: messenger, channel: channel, removing: handler == nil) {
            messenger.installSegmentedHandler(onChannel: channel, handler)
        }
    }

    /// Installs a handler that answers without suspending (or removes this slot's handler).
    @discardableResult
    func install(
        synchronous handler: SynchronousMessageHandler?, on messenger: any BinaryMessenger,
        channel: String
    ) -> MessageHandlerToken? {
        install(on: messenger, channel: channel, removing: handler == nil) {
            messenger.installSynchronousHandler(onChannel: channel, handler)
        }
    }

    /// Installs a handler that answers at once when it can, in a task when it cannot.
    @discardableResult
    func install(
        immediate handler: @escaping ImmediateMessageHandler, on messenger: any BinaryMessenger,
        channel: String
    ) -> MessageHandlerToken? {
        install(on: messenger, channel: channel, removing: false) {
            messenger.installImmediateHandler(onChannel: channel, handler)
        }
    }

    /// Installs a handler that reads its request and writes its reply in place, on a connection
    /// itself (never through a wrapper, which could not forward it).
    @discardableResult
    func install(
        inPlace handler: @escaping InPlaceMessageHandler, splitter: PayloadSplitter?, mayAnswerLater: Bool = false,
        on connection: MessengerConnection, channel: String
    ) -> MessageHandlerToken? {
        install(on: connection, channel: channel, removing: false) {
            connection.setInPlaceMessageHandler(
                onChannel: channel, handler, splitter: splitter, mayAnswerLater: mayAnswerLater)
        }
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

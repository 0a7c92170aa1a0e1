package import ChannelBridgeMessenger

/// Handlers that always answer in a task (`MethodChannel.setMethodCallHandler`, an event stream's
/// `listen` and `cancel`, the testing kit's mocks), built in the messenger's one handler shape: called as the request is
/// read, they keep it and leave the work for later.
package enum InTaskHandler {
    /// The handler that runs `work` in a task on the request as an array of its own: the one the
    /// messenger received it into when it has one, not a copy.
    package static func make(
        _ work: @escaping @Sendable (_ message: [UInt8]?) async throws -> HandlerReply
    ) -> MessageHandler {
        { message, _ in
            let payload = message.array
            return .later(LaterWork { try await work(payload) })
        }
    }
}

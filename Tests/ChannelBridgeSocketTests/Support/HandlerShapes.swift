import ChannelBridgeBytes
import ChannelBridgeMessenger

/// The tests' spellings of `FastPathMessenger.setMessageHandler(onChannel:_:mayAnswerLater:splitter:)`,
/// the one package handler entry: the handler last, so that it can be a trailing closure, and the
/// shapes channels build from it (an answer from the payload as an array, work in a task).
extension FastPathMessenger {
    /// Installs `handler`, answered where its request is read unless `mayAnswerLater`.
    @discardableResult
    func installHandler(
        onChannel channel: String, splitter: PayloadSplitter? = nil, mayAnswerLater: Bool = false,
        _ handler: @escaping MessageHandler
    ) -> MessageHandlerToken {
        setMessageHandler(onChannel: channel, handler, mayAnswerLater: mayAnswerLater, splitter: splitter)
    }

    /// Installs a handler that answers at once from the payload as an array.
    @discardableResult
    func installAnsweringNow(
        onChannel channel: String, _ body: @escaping @Sendable ([UInt8]?) throws -> Payload?
    ) -> MessageHandlerToken {
        installHandler(onChannel: channel) { message, _ in try body(message.array).map(HandlerAnswer.payload) ?? .null
        }
    }

    /// Installs a handler that always answers in a task, on the payload as an array.
    @discardableResult
    func installInTask(
        onChannel channel: String, _ work: @escaping @Sendable ([UInt8]?) async throws -> HandlerReply
    ) -> MessageHandlerToken {
        installHandler(onChannel: channel, mayAnswerLater: true) { message, _ in
            let payload = message.array
            return .later(LaterWork { try await work(payload) })
        }
    }
}

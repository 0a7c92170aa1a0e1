package import ChannelBridgeBytes
package import ChannelBridgeMessenger
import ChannelBridgePlatform

/// A `FastPathMessenger` that records which entry point each channel used.
package final class FastPathProbe: FastPathMessenger {
    package let flow = OutboundFlow(highWater: 1 << 20, lowWater: 1 << 10)
    package let limit = FrameLimit(own: 1 << 24)
    private let state = LockedValue<(calls: [String], handlers: [String: MessageHandler])>(([], [:]))

    package init() {}

    package var calls: [String] { state.withLock { $0.calls } }

    package func handler(on channel: String) -> MessageHandler? {
        state.withLock { $0.handlers[channel] }
    }

    /// Drops the handlers it keeps, as removing them from a session does.
    package func forgetHandlers() {
        state.withLock { $0.handlers = [:] }
    }

    private func record(_ call: String) -> MessageHandlerToken {
        state.withLock { $0.calls.append(call) }
        return MessageHandlerToken(channel: "", id: 0)
    }

    package func send(onChannel channel: String, message: [UInt8]?) async throws -> [UInt8]? {
        _ = record("send(message:) \(channel)")
        return nil
    }

    package func post(onChannel channel: String, message: [UInt8]?) throws {
        _ = record("post \(channel)")
    }

    package func setMessageHandler(onChannel channel: String, _ handler: BinaryMessageHandler?) -> MessageHandlerToken {
        record("setMessageHandler \(channel)")
    }

    package func removeMessageHandler(_ token: MessageHandlerToken) {}

    package func onClose(_ callback: @escaping @Sendable (MessengerError) -> Void) {}

    package func send(onChannel channel: String, payload: Payload) async throws -> [UInt8]? {
        _ = record("send(payload:) \(channel)")
        return nil
    }

    package func setMessageHandler(
        onChannel channel: String, _ handler: MessageHandler?, mayAnswerLater: Bool, splitter: PayloadSplitter?
    ) -> MessageHandlerToken {
        state.withLock { $0.handlers[channel] = handler }
        return record(
            "setMessageHandler \(channel) \(mayAnswerLater ? "later" : "now")\(splitter == nil ? "" : " split")")
    }

    package var outboundFlow: OutboundFlow? { flow }
    package var frameLimit: FrameLimit? { limit }
    // Sees every message it passes on, so never bypassed.
    package var directConnection: MessengerConnection? { nil }
}

import ChannelBridgeCodec
import ChannelBridgeMessenger

/// A session's messenger as its channels and plugins see it: once the extension request has
/// ended, every request that arrives is answered with REPLY status 2 `host is shutting down`,
/// except `exit`, `completeRequest` and `cancel` on the extension channel, which reach their
/// handler and get `REQUEST_ALREADY_COMPLETED`.
final class ShutdownGate: BinaryMessenger, FlowControlledMessenger {
    let base: any BinaryMessenger
    private let request: ExtensionRequest
    private let extensionChannel: String

    init(base: any BinaryMessenger, request: ExtensionRequest, extensionChannel: String) {
        self.base = base
        self.request = request
        self.extensionChannel = extensionChannel
    }

    func send(onChannel channel: String, message: [UInt8]?) async throws -> [UInt8]? {
        try await base.send(onChannel: channel, message: message)
    }

    func post(onChannel channel: String, message: [UInt8]?) throws {
        try base.post(onChannel: channel, message: message)
    }

    @discardableResult
    func setMessageHandler(onChannel channel: String, _ handler: BinaryMessageHandler?) -> MessageHandlerToken {
        guard let handler else { return base.setMessageHandler(onChannel: channel, nil) }
        let (request, extensionChannel) = (self.request, self.extensionChannel)
        return base.setMessageHandler(onChannel: channel) { message in
            if request.hasEnded && !(channel == extensionChannel && Self.isCompletionCall(message)) {
                throw HostShuttingDown()
            }
            return try await handler(message)
        }
    }

    func removeMessageHandler(_ token: MessageHandlerToken) {
        base.removeMessageHandler(token)
    }

    func onClose(_ callback: @escaping @Sendable (MessengerError) -> Void) {
        base.onClose(callback)
    }

    // Flow control and frame limits are the wrapped messenger's.
    var outboundFlow: OutboundFlow? { base.flowControl?.outboundFlow }
    var frameLimit: FrameLimit? { base.flowControl?.frameLimit }

    private static func isCompletionCall(_ message: [UInt8]?) -> Bool {
        guard let message, let call = try? StandardMethodCodec().decodeMethodCall(message) else { return false }
        return ["exit", "completeRequest", "cancel"].contains(call.method)
    }
}

/// Thrown by a gated handler; the messenger answers REPLY status 2 with this text.
struct HostShuttingDown: Error, CustomStringConvertible {
    var description: String { ExtensionHost.shuttingDownReason }
}

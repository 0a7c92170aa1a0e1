import ChannelBridgeCodec
import ChannelBridgeMessenger

/// A session's messenger as its channels and plugins see it: once the extension request has
/// ended, every request that arrives is answered with REPLY status 2 `host is shutting down`,
/// except `exit`, `completeRequest` and `cancel` on the extension channel, which reach their
/// handler and get `REQUEST_ALREADY_COMPLETED`.
///
/// Every fast path (`FastPathMessenger`) is forwarded, gated the same way, so a host session keeps
/// segmented replies, synchronous handlers and after-reply work.
final class ShutdownGate: BinaryMessenger, FastPathMessenger {
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
            try Self.check(request, channel: channel, extensionChannel: extensionChannel, message)
            return try await handler(message)
        }
    }

    func send(onChannel channel: String, segments: MessageSegments) async throws -> [UInt8]? {
        try await base.sendSegments(onChannel: channel, segments)
    }

    @discardableResult
    func setSegmentedMessageHandler(onChannel channel: String, _ handler: SegmentedMessageHandler?) -> MessageHandlerToken {
        guard let handler else { return base.installSegmentedHandler(onChannel: channel, nil) }
        let (request, extensionChannel) = (self.request, self.extensionChannel)
        return base.installSegmentedHandler(onChannel: channel) { message in
            try Self.check(request, channel: channel, extensionChannel: extensionChannel, message)
            return try await handler(message)
        }
    }

    @discardableResult
    func setSynchronousMessageHandler(onChannel channel: String, _ handler: SynchronousMessageHandler?) -> MessageHandlerToken {
        guard let handler else { return base.installSynchronousHandler(onChannel: channel, nil) }
        let (request, extensionChannel) = (self.request, self.extensionChannel)
        return base.installSynchronousHandler(onChannel: channel) { message in
            try Self.check(request, channel: channel, extensionChannel: extensionChannel, message)
            return try handler(message)
        }
    }

    @discardableResult
    func setImmediateMessageHandler(onChannel channel: String, _ handler: ImmediateMessageHandler?) -> MessageHandlerToken {
        guard let handler else { return base.installImmediateHandler(onChannel: channel, nil) }
        let (request, extensionChannel) = (self.request, self.extensionChannel)
        return base.installImmediateHandler(onChannel: channel) { message in
            try Self.check(request, channel: channel, extensionChannel: extensionChannel, message)
            return try handler(message)
        }
    }

    /// Throws `HostShuttingDown` for a request the gate refuses.
    private static func check(_ request: ExtensionRequest, channel: String, extensionChannel: String,
                              _ message: [UInt8]?) throws(HostShuttingDown) {
        if request.hasEnded && !(channel == extensionChannel && isCompletionCall(message)) {
            throw HostShuttingDown()
        }
    }

    func removeMessageHandler(_ token: MessageHandlerToken) {
        base.removeMessageHandler(token)
    }

    func onClose(_ callback: @escaping @Sendable (MessengerError) -> Void) {
        base.onClose(callback)
    }

    // Flow control and frame limits are the wrapped messenger's.
    var outboundFlow: OutboundFlow? { base.fastPath?.outboundFlow }
    var frameLimit: FrameLimit? { base.fastPath?.frameLimit }

    private static func isCompletionCall(_ message: [UInt8]?) -> Bool {
        guard let message, let call = try? StandardMethodCodec().decodeMethodCall(message) else { return false }
        return ["exit", "completeRequest", "cancel"].contains(call.method)
    }
}

/// Thrown by a gated handler; the messenger answers REPLY status 2 with this text.
struct HostShuttingDown: Error, CustomStringConvertible {
    var description: String { ExtensionHost.shuttingDownReason }
}

import ChannelBridgeBytes
import ChannelBridgeMessenger

/// The test's end of a `TestMessenger`: what it sends reaches the code under test (and is
/// recorded); its handlers are the mock handlers, reached through the core's dispatcher. Its fast
/// paths are forwarded too (synchronous mocks run as segmented ones, through the dispatcher).
final class PeerMessenger: BinaryMessenger, FastPathMessenger {
    private let core: TestMessengerCore

    init(core: TestMessengerCore) {
        self.core = core
    }

    func send(onChannel channel: String, message: [UInt8]?) async throws -> [UInt8]? {
        let connection = core.testConnection
        return try await core.recorder.recordingRequest(channel: channel, direction: .received, payload: message) {
            try await connection.send(onChannel: channel, message: message)
        }
    }

    func post(onChannel channel: String, message: [UInt8]?) throws {
        let connection = core.testConnection
        try core.recorder.recordingMessage(channel: channel, direction: .received, payload: message) {
            try connection.post(onChannel: channel, message: message)
        }
    }

    @discardableResult
    func setMessageHandler(onChannel channel: String, _ handler: BinaryMessageHandler?) -> MessageHandlerToken {
        guard let handler else { return core.install(nil, on: channel) }
        return core.install(
            { message in HandlerReply(try await handler(message).map { Payload($0) }) }, on: channel)
    }

    func send(onChannel channel: String, payload: Payload) async throws -> [UInt8]? {
        let connection = core.testConnection
        return try await core.recorder.recordingRequest(
            channel: channel, direction: .received, payload: payload.array
        ) {
            try await connection.send(onChannel: channel, payload: payload)
        }
    }

    @discardableResult
    func setMessageHandler(
        onChannel channel: String, _ handler: MessageHandler?, mayAnswerLater: Bool, splitter: PayloadSplitter?
    ) -> MessageHandlerToken {
        guard let handler else { return core.install(nil, on: channel) }
        return core.install({ message in try await HandlerReply(answering: message, with: handler) }, on: channel)
    }

    var outboundFlow: OutboundFlow? { core.testConnection.outboundFlow }
    var frameLimit: FrameLimit? { core.testConnection.frameLimit }
    // Sees every message it passes on, so never bypassed.
    var directConnection: MessengerConnection? { nil }

    func removeMessageHandler(_ token: MessageHandlerToken) {
        core.remove(token)
    }

    func onClose(_ callback: @escaping @Sendable (MessengerError) -> Void) {
        core.testConnection.onClose(callback)
    }
}

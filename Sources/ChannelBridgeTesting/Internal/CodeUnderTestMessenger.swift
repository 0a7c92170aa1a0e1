import ChannelBridgeBytes
import ChannelBridgeMessenger

/// The messenger the code under test gets: its real connection, plus the recording and the
/// dispatcher set-up that let the test's side see every channel it uses. The fast paths are
/// forwarded, so code under test runs as it does on a real connection.
final class CodeUnderTestMessenger: BinaryMessenger, FastPathMessenger {
    private let core: TestMessengerCore

    init(core: TestMessengerCore) {
        self.core = core
    }

    func send(onChannel channel: String, message: [UInt8]?) async throws -> [UInt8]? {
        core.ensureDispatcher(on: channel)
        let connection = core.codeUnderTestConnection
        return try await core.recorder.recordingRequest(channel: channel, direction: .sent, payload: message) {
            try await connection.send(onChannel: channel, message: message)
        }
    }

    func post(onChannel channel: String, message: [UInt8]?) throws {
        core.ensureDispatcher(on: channel)
        let connection = core.codeUnderTestConnection
        try core.recorder.recordingMessage(channel: channel, direction: .sent, payload: message) {
            try connection.post(onChannel: channel, message: message)
        }
    }

    @discardableResult
    func setMessageHandler(onChannel channel: String, _ handler: BinaryMessageHandler?) -> MessageHandlerToken {
        core.codeUnderTestConnection.setMessageHandler(onChannel: channel, handler)
    }

    func removeMessageHandler(_ token: MessageHandlerToken) {
        core.codeUnderTestConnection.removeMessageHandler(token)
    }

    func onClose(_ callback: @escaping @Sendable (MessengerError) -> Void) {
        core.codeUnderTestConnection.onClose(callback)
    }

    func send(onChannel channel: String, payload: Payload) async throws -> [UInt8]? {
        core.ensureDispatcher(on: channel)
        let connection = core.codeUnderTestConnection
        return try await core.recorder.recordingRequest(channel: channel, direction: .sent, payload: payload.array) {
            try await connection.send(onChannel: channel, payload: payload)
        }
    }

    @discardableResult
    func setMessageHandler(
        onChannel channel: String, _ handler: MessageHandler?, mayAnswerLater: Bool, splitter: PayloadSplitter?
    ) -> MessageHandlerToken {
        core.codeUnderTestConnection.setMessageHandler(
            onChannel: channel, handler, mayAnswerLater: mayAnswerLater, splitter: splitter)
    }

    var outboundFlow: OutboundFlow? { core.codeUnderTestConnection.outboundFlow }
    var frameLimit: FrameLimit? { core.codeUnderTestConnection.frameLimit }
    // Sees every message it passes on, so never bypassed.
    var directConnection: MessengerConnection? { nil }
}

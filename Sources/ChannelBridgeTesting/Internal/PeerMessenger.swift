import ChannelBridgeMessenger

/// The test's end of a `TestMessenger`: what it sends reaches the code under test (and is
/// recorded); its handlers are the mock handlers, reached through the core's dispatcher.
final class PeerMessenger: BinaryMessenger {
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
        core.install(handler, on: channel)
    }

    func removeMessageHandler(_ token: MessageHandlerToken) {
        core.remove(token)
    }

    func onClose(_ callback: @escaping @Sendable (MessengerError) -> Void) {
        core.testConnection.onClose(callback)
    }
}

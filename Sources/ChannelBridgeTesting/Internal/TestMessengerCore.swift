import ChannelBridgeBytes
import ChannelBridgeChannels
import ChannelBridgeMessenger
import ChannelBridgePlatform

/// The machinery behind a `TestMessenger`: the in-memory pair, the mock handlers by channel, the
/// all-messages handler and the recorder.
///
/// The test's connection gets one dispatching handler per channel the code under test uses, which
/// consults the all-messages handler and then the mock handler of the channel at delivery time. So
/// mocks can be set and replaced at any moment, and the interceptor sees every channel, including
/// those with no mock.
final class TestMessengerCore: Sendable {
    private struct InstalledHandler {
        let id: UInt64
        /// Segmented, so that a mock's work after its reply (a mock stream's first events) runs
        /// after the test's connection has queued that reply, as on a real connection.
        let handler: TaskMessageHandler
    }

    private struct State {
        var handlers: [String: InstalledHandler] = [:]
        var nextHandlerID: UInt64 = 0
        /// Channels whose dispatching handler is installed on the test's connection.
        var dispatched: Set<String> = []
        var allMessagesHandler: TestMessenger.AllMessagesHandler?
        /// The event channels behind `setMockStreamHandler`, kept to retire their owner.
        var streamChannels: [String: EventChannel] = [:]
    }

    /// The connection the code under test uses (through `CodeUnderTestMessenger`).
    let codeUnderTestConnection: MessengerConnection
    /// The connection the test plays the peer on (through `PeerMessenger`).
    let testConnection: MessengerConnection
    let recorder = MessageRecorder()
    private let state = LockedValue(State())

    /// - Parameter observe: sees the bytes delivered to the code under test, in order (tests of
    ///   the kit itself).
    init(codeUnderTestRole role: PeerRole, observingCodeUnderTestInput observe: (@Sendable ([UInt8]) -> Void)? = nil) {
        let codeUnderTestOptions = MessengerConnection.Options(name: "TestMessenger code under test")
        let testOptions = MessengerConnection.Options(name: "TestMessenger mock peer")
        var observer: (@Sendable (PeerRole, [UInt8]) -> Void)?
        if let observe {
            observer = { receiver, bytes in
                if receiver == role { observe(bytes) }
            }
        }
        let pair =
            role == .client
            ? InMemoryMessenger.makePair(client: codeUnderTestOptions, host: testOptions, observingDeliveries: observer)
            : InMemoryMessenger.makePair(client: testOptions, host: codeUnderTestOptions, observingDeliveries: observer)
        codeUnderTestConnection = role == .client ? pair.client : pair.host
        testConnection = role == .client ? pair.host : pair.client
    }

    // MARK: Dispatch on the test's side

    /// Makes sure messages the code under test sends on `channel` reach `dispatch`. Called before
    /// every send and post of the code under test.
    func ensureDispatcher(on channel: String) {
        state.withLock { state in
            guard state.dispatched.insert(channel).inserted else { return }
            // Installed under the lock so that a concurrent first send on the channel cannot
            // overtake the installation. The connection never calls back into this lock.
            testConnection.setMessageHandler(
                onChannel: channel,
                InTaskHandler.make { [weak self] message in
                    try await self?.dispatch(message, on: channel) ?? HandlerReply(nil)
                }, mayAnswerLater: true, splitter: nil)
        }
    }

    private func dispatch(_ message: [UInt8]?, on channel: String) async throws -> HandlerReply {
        let (interceptor, mock) = state.withLock { ($0.allMessagesHandler, $0.handlers[channel]?.handler) }
        guard let interceptor else { return try await mock?(message) ?? HandlerReply(nil) }
        // The interceptor deals in bytes; the mock's after-reply work is kept aside for the reply.
        let afterReply = LockedValue<(@Sendable () -> Void)?>(nil)
        let passThrough: BinaryMessageHandler = { message in
            guard let mock else { return nil }
            let answer = try await mock(message)
            afterReply.withLock { $0 = answer.afterReply }
            return answer.reply?.array
        }
        let reply = try await interceptor(channel, message, passThrough)
        return HandlerReply(reply.map { Payload($0) }, afterReply: afterReply.withLock { $0 })
    }

    var allMessagesHandler: TestMessenger.AllMessagesHandler? {
        get { state.withLock { $0.allMessagesHandler } }
        set { state.withLock { $0.allMessagesHandler = newValue } }
    }

    // MARK: Mock handlers (the peer's message handlers)

    func install(_ handler: TaskMessageHandler?, on channel: String) -> MessageHandlerToken {
        state.withLock { state in
            state.nextHandlerID += 1
            state.handlers[channel] = handler.map { InstalledHandler(id: state.nextHandlerID, handler: $0) }
            return MessageHandlerToken(channel: channel, id: state.nextHandlerID)
        }
    }

    func remove(_ token: MessageHandlerToken) {
        state.withLock { state in
            if state.handlers[token.channel]?.id == token.id { state.handlers[token.channel] = nil }
        }
    }

    func hasHandler(on channel: String) -> Bool {
        state.withLock { $0.handlers[channel] != nil }
    }

    /// Ends the mock stream handler of `channel`, if any (its listener's stream ends and its
    /// `onCancel` runs), before another mock takes the channel.
    func retireStreamChannel(_ channel: String) {
        let previous = state.withLock { $0.streamChannels.removeValue(forKey: channel) }
        previous?.setStreamHandler(nil)
    }

    func keepStreamChannel(_ eventChannel: EventChannel) {
        state.withLock { $0.streamChannels[eventChannel.name] = eventChannel }
    }
}

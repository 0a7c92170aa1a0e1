import ChannelBridgeChannels
import ChannelBridgeCodec
import ChannelBridgeMessenger
import ChannelBridgeTestSupport
import ChannelBridgeTesting
import Testing

private let channelName = "test/events"
private let listenCall = hex("07 06 6c697374656e")
private let cancelCall = hex("07 06 63616e63656c")

/// A messenger whose `send` may suspend before the request is on its way, as any messenger may
/// (a transport hop, a lock): here a `cancel` takes a while to go out.
private final class SlowCancelMessenger: BinaryMessenger {
    let inner: RecordingMessenger
    init(inner: RecordingMessenger) { self.inner = inner }

    func send(onChannel channel: String, message: [UInt8]?) async throws -> [UInt8]? {
        if message?.starts(with: cancelCall) == true { try await Task.sleep(for: .milliseconds(50)) }
        return try await inner.send(onChannel: channel, message: message)
    }
    func post(onChannel channel: String, message: [UInt8]?) throws {
        try inner.post(onChannel: channel, message: message)
    }
    func setMessageHandler(onChannel channel: String, _ handler: BinaryMessageHandler?) -> MessageHandlerToken {
        inner.setMessageHandler(onChannel: channel, handler)
    }
    func removeMessageHandler(_ token: MessageHandlerToken) { inner.removeMessageHandler(token) }
    func onClose(_ callback: @escaping @Sendable (MessengerError) -> Void) { inner.onClose(callback) }
}

/// The listener's `listen` and `cancel` requests leave in the order they were made, whatever the
/// messenger does before writing them: a `cancel` that went out after the next `listen` would
/// make the owner cancel the new stream.
@Suite struct EventChannelRequestOrderTests {
    @Test func cancelOfAnEndedStreamPrecedesTheNextListen() async throws {
        let recording = RecordingMessenger { _, _ in hex("00 00") }
        let channel = EventChannel(name: channelName, messenger: SlowCancelMessenger(inner: recording))
        try await withHangGuard { () async throws in
            for round in 0..<3 {
                let stream = channel.receiveBroadcastStream(arguments: .int32(Int32(round)))
                await recording.waitUntil { $0.filter { if case .reply = $0 { true } else { false } }.count == 2 * round + 1 }
                await recording.deliverMessage(onChannel: channelName, message: nil)
                for try await _ in stream {}
                // The next round listens at once, while this stream's cancel is still on its way.
            }
            await recording.waitUntil { $0.filter { if case .reply = $0 { true } else { false } }.count == 6 }
            let sent = recording.entries.compactMap { entry -> [UInt8]? in
                if case .request(_, let message?) = entry { message } else { nil }
            }
            #expect(sent == (0..<3).flatMap { round -> [[UInt8]] in
                let argument = hex("03") + [UInt8(round), 0, 0, 0]
                return [listenCall + argument, cancelCall + argument]
            })
        }
    }
}

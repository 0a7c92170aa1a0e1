import ChannelBridgeChannels
import ChannelBridgeCodec
import ChannelBridgeMessenger
import ChannelBridgeTestSupport
import ChannelBridgeTesting
import Dispatch
import Synchronization
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

/// A messenger that is slow to remove a handler, as a reader thread is when it loses its CPU right
/// after the owner's end of stream: the first removal waits until the listener's next `listen`
/// goes out, or for `window`, in which that must not happen.
private final class SlowRemovalMessenger: BinaryMessenger {
    let inner: RecordingMessenger
    let window: DispatchTimeInterval
    private let listens = Atomic<Int>(0)
    private let removalCount = Atomic<Int>(0)
    private let nextListen = DispatchSemaphore(value: 0)
    private let (removals, removalStarted) = AsyncStream.makeStream(of: Void.self)

    init(inner: RecordingMessenger, window: DispatchTimeInterval) {
        self.inner = inner
        self.window = window
    }

    /// Returns once a handler removal has begun.
    func waitForARemoval() async {
        for await _ in removals { return }
    }

    func send(onChannel channel: String, message: [UInt8]?) async throws -> [UInt8]? {
        if message?.starts(with: listenCall) == true, listens.add(1, ordering: .relaxed).newValue == 2 {
            nextListen.signal()
        }
        return try await inner.send(onChannel: channel, message: message)
    }
    func post(onChannel channel: String, message: [UInt8]?) throws {
        try inner.post(onChannel: channel, message: message)
    }
    func setMessageHandler(onChannel channel: String, _ handler: BinaryMessageHandler?) -> MessageHandlerToken {
        inner.setMessageHandler(onChannel: channel, handler)
    }
    func removeMessageHandler(_ token: MessageHandlerToken) {
        if removalCount.add(1, ordering: .relaxed).newValue == 1 {
            removalStarted.yield()
            _ = nextListen.wait(timeout: .now() + window)
        }
        inner.removeMessageHandler(token)
    }
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
                await recording.waitUntil {
                    $0.filter { if case .reply = $0 { true } else { false } }.count == 2 * round + 1
                }
                await recording.deliverMessage(onChannel: channelName, message: nil)
                for try await _ in stream {}
                // The next round listens at once, while this stream's cancel is still on its way.
            }
            await recording.waitUntil { $0.filter { if case .reply = $0 { true } else { false } }.count == 6 }
            let sent = recording.entries.compactMap { entry -> [UInt8]? in
                if case .request(_, let message?) = entry { message } else { nil }
            }
            #expect(
                sent
                    == (0..<3).flatMap { round -> [[UInt8]] in
                        let argument = hex("03") + [UInt8(round), 0, 0, 0]
                        return [listenCall + argument, cancelCall + argument]
                    })
        }
    }

    /// The owner's end of stream arrives while the consumer is still taking earlier events: the
    /// consumer sees the end as soon as the stream marks it, while the reader thread may not yet
    /// have submitted the `cancel` (here it is held up removing the handler). The consumer listens
    /// again at once; the `cancel` must still go first.
    @Test func cancelOfAStreamEndedBehindItsConsumerPrecedesTheNextListen() async throws {
        let recording = RecordingMessenger { _, _ in hex("00 00") }
        // The window only has to be long enough for a consumer that saw the end to listen again;
        // a correct listener waits it out once.
        let messenger = SlowRemovalMessenger(inner: recording, window: .milliseconds(250))
        let channel = EventChannel(name: channelName, messenger: messenger)
        try await withHangGuard { () async throws in
            let first = channel.receiveBroadcastStream(arguments: .int32(0))
            await recording.waitUntil { $0.filter { if case .reply = $0 { true } else { false } }.count == 1 }
            for n in 0..<3 {
                await recording.deliverMessage(onChannel: channelName, message: hex("00 03") + [UInt8(n), 0, 0, 0])
            }
            // The end, delivered by a task of its own that the slow removal holds up.
            let ending = Task.detached { await recording.deliverMessage(onChannel: channelName, message: nil) }
            await messenger.waitForARemoval()
            var received: [EventChannel.Event] = []
            for try await event in first { received.append(event) }
            #expect(received == [.success(.int32(0)), .success(.int32(1)), .success(.int32(2))])
            let second = channel.receiveBroadcastStream(arguments: .int32(1))
            await ending.value
            await recording.waitUntil { $0.filter { if case .reply = $0 { true } else { false } }.count == 3 }
            let sent = recording.entries.compactMap { entry -> [UInt8]? in
                if case .request(_, let message?) = entry { message } else { nil }
            }
            #expect(
                sent == [
                    listenCall + hex("03 00 00 00 00"), cancelCall + hex("03 00 00 00 00"),
                    listenCall + hex("03 01 00 00 00"),
                ])
            await recording.deliverMessage(onChannel: channelName, message: nil)
            for try await _ in second {}
        }
    }
}

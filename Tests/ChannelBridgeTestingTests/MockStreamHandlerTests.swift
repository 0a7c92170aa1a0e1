import ChannelBridgeChannels
import ChannelBridgeCodec
import ChannelBridgeMessenger
import ChannelBridgePlatform
import ChannelBridgeTestSupport
import ChannelBridgeTesting
import Testing

private let ticks = "example/ticks"

/// Whether the listener's `cancel` on `channel` has been answered.
private func cancelAnswered(on channel: String) -> @Sendable ([MessageRecord]) -> Bool {
    { records in records.contains { $0.channel == channel && $0.method == "cancel" && $0.reply != nil } }
}

/// `setMockStreamHandler` with a `MockStreamHandler` feeding an `EventChannel` listener of the code
/// under test.
@Suite struct MockStreamHandlerTests {
    @Test func eventsErrorEventEndOfStreamAndCancelAreRecorded() async throws {
        let test = TestMessenger(role: .client)
        defer { test.close() }
        let mock = MockStreamHandler()
        test.setMockStreamHandler(channel: ticks, mock)
        let listener = EventChannel(name: ticks, messenger: test.messenger)
        try await withHangGuard { () async throws in
            var iterator = listener.receiveBroadcastStream(arguments: ["rate": 2]).makeAsyncIterator()
            let events = try await mock.waitForListen()
            #expect(mock.isListening)
            events.success(1)
            events.error(MethodError(code: "SENSOR", message: "glitch"))
            events.success(2)
            events.endOfStream()
            #expect(try await iterator.next() == .success(1))
            #expect(try await iterator.next() == .error(MethodError(code: "SENSOR", message: "glitch")))
            #expect(try await iterator.next() == .success(2))
            #expect(try await iterator.next() == nil)
            // Flutter's listener cancels after the end of stream, with the listen arguments.
            #expect(try await mock.waitForCancel() == ["rate": 2])
            await test.recorder.waitUntil(cancelAnswered(on: ticks))
        }
        #expect(mock.calls == [.listen(["rate": 2]), .cancel(["rate": 2])])
        #expect(!mock.isListening)
        #expect(mock.events == nil)

        let recorder = test.recorder
        #expect(
            recorder.calls(on: ticks, direction: .sent)
                == [MethodCall("listen", arguments: ["rate": 2]), MethodCall("cancel", arguments: ["rate": 2])])
        #expect(recorder.replies(on: ticks).map { $0?.envelope } == [.success(nil), .success(nil)])
        let messages = recorder.messages(on: ticks)
        #expect(messages.allSatisfy { $0.direction == .received })
        #expect(
            messages.map(\.event) == [
                .success(1), .error(MethodError(code: "SENSOR", message: "glitch")), .success(2), nil,
            ])
        #expect(messages.map(\.isEndOfStream) == [false, false, false, true])
        // The exact bytes of the events: success envelope of int32 1, then the error envelope.
        #expect(messages.first?.payload == hex("00 03 01000000"))
        #expect(
            messages.dropFirst().first?.payload
                == hex("01") + standardString("SENSOR") + standardString("glitch") + hex("00"))
    }

    @Test func aRefusedListenEndsTheStreamWithItsError() async throws {
        let test = TestMessenger(role: .client)
        defer { test.close() }
        let mock = MockStreamHandler(onListen: { arguments, _ in
            throw MethodError(code: "NO_SENSOR", message: "no sensor \(arguments)")
        })
        test.setMockStreamHandler(channel: ticks, mock)
        let listener = EventChannel(name: ticks, messenger: test.messenger)
        try await withHangGuard { () async throws in
            await #expect(throws: MethodError(code: "NO_SENSOR", message: "no sensor \(StandardValue.string("left"))"))
            {
                for try await _ in listener.receiveBroadcastStream(arguments: "left") {}
            }
        }
        #expect(mock.calls == [.listen("left")])
        #expect(!mock.isListening)
        #expect(test.recorder.calls(on: ticks).map(\.method) == ["listen"])
        #expect(
            test.recorder.replies(on: ticks).map { $0?.envelope }
                == [.error(MethodError(code: "NO_SENSOR", message: "no sensor \(StandardValue.string("left"))"))])
    }

    @Test func stoppingTheListenerCancelsTheMockStream() async throws {
        let test = TestMessenger(role: .client)
        defer { test.close() }
        let mock = MockStreamHandler()
        test.setMockStreamHandler(channel: ticks, mock)
        let listener = EventChannel(name: ticks, messenger: test.messenger)
        let (firstEvent, gotFirst) = AsyncStream.makeStream(of: EventChannel.Event.self)
        try await withHangGuard { () async throws in
            let consumer = Task {
                for try await event in listener.receiveBroadcastStream(arguments: "x") { gotFirst.yield(event) }
            }
            let events = try await mock.waitForListen()
            events.success("first")
            for await event in firstEvent {
                #expect(event == .success("first"))
                break
            }
            consumer.cancel()
            #expect(try await mock.waitForCancel() == "x")
            await test.recorder.waitUntil(cancelAnswered(on: ticks))
            // The sink is dead once cancelled: later events are dropped, nothing is sent.
            events.success("too late")
            #expect(!events.isActive)
        }
        #expect(mock.calls == [.listen("x"), .cancel("x")])
        #expect(test.recorder.messages(on: ticks).map(\.event) == [.success("first")])
    }

    @Test func theEndOfTheSessionEndsTheListenerAndCancelsTheMock() async throws {
        let test = TestMessenger(role: .client)
        let mock = MockStreamHandler()
        test.setMockStreamHandler(channel: ticks, mock)
        let listener = EventChannel(name: ticks, messenger: test.messenger)
        try await withHangGuard { () async throws in
            var iterator = listener.receiveBroadcastStream().makeAsyncIterator()
            _ = try await mock.waitForListen()
            test.close()
            do {
                _ = try await iterator.next()
                Issue.record("the stream should end with the connection")
            } catch let error as ChannelError {
                #expect(error.code == .connectionClosed)
                #expect(error.channel == ticks)
            }
            #expect(try await mock.waitForCancel() == nil)
        }
        #expect(mock.calls == [.listen(nil), .cancel(nil)])
    }

    @Test func removingTheMockEndsTheActiveStream() async throws {
        let test = TestMessenger(role: .client)
        defer { test.close() }
        let mock = MockStreamHandler()
        test.setMockStreamHandler(channel: ticks, mock)
        let listener = EventChannel(name: ticks, messenger: test.messenger)
        try await withHangGuard { () async throws in
            var iterator = listener.receiveBroadcastStream().makeAsyncIterator()
            _ = try await mock.waitForListen()
            test.setMockStreamHandler(channel: ticks, nil)
            #expect(try await iterator.next() == nil)
            #expect(try await mock.waitForCancel() == nil)
        }
        #expect(!test.hasMockHandler(channel: ticks))
        #expect(test.recorder.messages(on: ticks).map(\.isEndOfStream) == [true])
    }

    @Test func onCancelCanRefuseTheCancel() async throws {
        let test = TestMessenger(role: .client)
        defer { test.close() }
        let mock = MockStreamHandler(onCancel: { _ in throw MethodError(code: "BUSY") })
        test.setMockStreamHandler(channel: ticks, mock)
        let listener = EventChannel(name: ticks, messenger: test.messenger)
        try await withHangGuard { () async throws in
            var iterator = listener.receiveBroadcastStream().makeAsyncIterator()
            let events = try await mock.waitForListen()
            events.endOfStream()
            #expect(try await iterator.next() == nil)
            await test.recorder.waitUntil(cancelAnswered(on: ticks))
        }
        #expect(
            test.recorder.replies(on: ticks).map { $0?.envelope } == [.success(nil), .error(MethodError(code: "BUSY"))])
    }

    @Test func eventsSentFromOnListenReachTheListener() async throws {
        let test = TestMessenger(role: .client)
        defer { test.close() }
        test.setMockStreamHandler(
            channel: ticks,
            MockStreamHandler(onListen: { arguments, events in
                for n in 1...(arguments.intValue ?? 0) { events.success(.int(n)) }
                events.endOfStream()
            }))
        let listener = EventChannel(name: ticks, messenger: test.messenger)
        try await withHangGuard { () async throws in
            var received: [EventChannel.Event] = []
            for try await event in listener.receiveBroadcastStream(arguments: 3) { received.append(event) }
            #expect(received == [.success(1), .success(2), .success(3)])
        }
    }

    /// Events a mock sends from `onListen` cross after the REPLY to `listen`, as the protocol
    /// requires of an owner (wire-protocol §6), with or without an all-messages handler between
    /// (which once lost the mock's after-reply work): checked on the bytes the code under test is
    /// handed, in order.
    @Test(arguments: [false, true])
    func eventsSentFromOnListenCrossAfterTheListenReply(throughAllMessagesHandler: Bool) async throws {
        let frames = LockedValue((decoder: FrameDecoder(), decoded: [Frame]()))
        let test = TestMessenger(role: .client) { bytes in
            frames.withLock { frames in
                frames.decoder.append(bytes)
                while let frame = try? frames.decoder.next() { frames.decoded.append(frame) }
            }
        }
        defer { test.close() }
        if throughAllMessagesHandler {
            test.allMessagesHandler = { _, message, passThrough in try await passThrough(message) }
        }
        test.setMockStreamHandler(
            channel: ticks,
            MockStreamHandler(onListen: { _, events in
                for n in 1...3 { events.success(.int(n)) }
                events.endOfStream()
            }))
        let listener = EventChannel(name: ticks, messenger: test.messenger)
        try await withHangGuard { () async throws in
            var received: [EventChannel.Event] = []
            for try await event in listener.receiveBroadcastStream() { received.append(event) }
            #expect(received == [.success(1), .success(2), .success(3)])
        }
        let onTicks = frames.withLock { $0.decoded }.compactMap { frame -> String? in
            switch frame {
            case .reply: "reply"
            case .message(ticks, let payload): payload == nil ? "end" : "event"
            default: nil
            }
        }
        // The first reply is the one to `listen` (the `cancel` after the end is answered later).
        #expect(Array(onTicks.prefix(5)) == ["reply", "event", "event", "event", "end"])
    }
}

import ChannelBridgeChannels
import ChannelBridgeCodec
import ChannelBridgeMessenger
import ChannelBridgePlatform
import ChannelBridgeTestSupport
import ChannelBridgeTesting
import Testing

/// A stream owner in the code under test: sends its `listen` arguments' count of events, then ends.
private final class Countdown: StreamHandler {
    let cancels = LockedValue(0)

    func onListen(arguments: StandardValue, events: EventSink) async throws {
        guard case .int32(let count) = arguments, count >= 0 else {
            throw MethodError(code: "BAD_COUNT", message: "listen wants a count")
        }
        for n in stride(from: count, to: 0, by: -1) { events.success(.int32(n)) }
        events.endOfStream()
    }

    func onCancel(arguments: StandardValue) async throws {
        cancels.withLock { $0 += 1 }
    }
}

/// `invokeMethod`, `send`, `post` and `receiveBroadcastStream`: the test calls handlers the code
/// under test installed (Flutter's `handlePlatformMessage`).
@Suite struct DrivingTheCodeUnderTestTests {
    @Test func invokeMethodReachesTheCodeUnderTestsHandler() async throws {
        let test = TestMessenger()
        defer { test.close() }
        MethodChannel(name: "example/math", messenger: test.messenger).setMethodCallHandler { call in
            switch call.method {
            case "double": return .int32((call.arguments.intValue.map(Int32.init) ?? 0) * 2)
            case "fail": throw MethodError(code: "FAILED", message: "asked to fail", details: call.arguments)
            default: throw MethodNotImplemented()
            }
        }
        try await withHangGuard { () async throws in
            #expect(try await test.invokeMethod(channel: "example/math", method: "double", arguments: 21) == 42)
            await #expect(throws: MethodError(code: "FAILED", message: "asked to fail", details: "why")) {
                try await test.invokeMethod(channel: "example/math", method: "fail", arguments: "why")
            }
            await #expect(throws: ChannelError.self) {
                try await test.invokeMethod(channel: "example/math", method: "triple")
            }
            // Nothing installed on this channel by the code under test.
            await #expect(throws: ChannelError.self) {
                try await test.invokeMethod(channel: "example/elsewhere", method: "double")
            }
        }
        let records = test.recorder.records
        #expect(records.map(\.direction) == [.received, .received, .received, .received])
        #expect(records.map(\.method) == ["double", "fail", "triple", "double"])
        #expect(
            records.map { $0.reply?.envelope } == [
                .success(42), .error(MethodError(code: "FAILED", message: "asked to fail", details: "why")), nil, nil,
            ])
        #expect(records[0].payload == standardString("double") + hex("03 15000000"))
        #expect(records[0].reply?.bytes == hex("00 03 2a000000"))
    }

    @Test func sendAndPostReachABasicMessageChannel() async throws {
        let test = TestMessenger()
        defer { test.close() }
        let (received, arrived) = AsyncStream.makeStream(of: String?.self)
        BasicMessageChannel(name: "example/shout", messenger: test.messenger, codec: StringCodec())
            .setMessageHandler { message in
                arrived.yield(message)
                return message?.uppercased()
            }
        try await withHangGuard { () async throws in
            #expect(try await test.send(channel: "example/shout", message: utf8("hi")) == utf8("HI"))
            try test.post(channel: "example/shout", message: utf8("quiet"))
            var iterator = received.makeAsyncIterator()
            #expect(await iterator.next() == "hi")
            #expect(await iterator.next() == "quiet")
        }
        let records = test.recorder.records(on: "example/shout")
        #expect(records.map(\.kind) == [.request, .message])
        #expect(records.map(\.payload) == [utf8("hi"), utf8("quiet")])
        #expect(records.map(\.reply) == [.payload(utf8("HI"), envelope: nil), nil])
    }

    @Test func aThrowingHandlerOfTheCodeUnderTestFailsTheSend() async throws {
        let test = TestMessenger()
        defer { test.close() }
        test.messenger.setMessageHandler(onChannel: "example/raw") { _ in
            throw MessengerError(.transport, "disk on fire")
        }
        try await withHangGuard { () async throws in
            do {
                _ = try await test.send(channel: "example/raw", message: [1])
                Issue.record("the send should fail")
            } catch let error as MessengerError {
                #expect(error.code == .handlerFailed)
                #expect(error.channel == "example/raw")
                #expect(error.message.contains("disk on fire"))
            }
        }
        guard case .failed(let error)?? = test.recorder.replies(on: "example/raw").first else {
            Issue.record("the failure should be recorded")
            return
        }
        #expect(error.code == .handlerFailed)
    }

    @Test func receiveBroadcastStreamListensToAnOwnerInTheCodeUnderTest() async throws {
        let test = TestMessenger()
        defer { test.close() }
        let owner = Countdown()
        EventChannel(name: "example/countdown", messenger: test.messenger).setStreamHandler(owner)
        try await withHangGuard { () async throws in
            var events: [EventChannel.Event] = []
            for try await event in test.receiveBroadcastStream(channel: "example/countdown", arguments: .int32(3)) {
                events.append(event)
            }
            #expect(events == [.success(3), .success(2), .success(1)])
            await test.recorder.waitUntil { records in
                records.contains { $0.method == "cancel" && $0.reply != nil }
            }
        }
        #expect(owner.cancels.withLock { $0 } == 1)
        let recorder = test.recorder
        #expect(recorder.calls(on: "example/countdown", direction: .received).map(\.method) == ["listen", "cancel"])
        #expect(
            recorder.messages(on: "example/countdown", direction: .sent).map(\.event)
                == [.success(3), .success(2), .success(1), nil])
    }

    @Test func closingFailsTheCodeUnderTestsPendingCalls() async throws {
        let test = TestMessenger(role: .client)
        let (started, didStart) = AsyncStream.makeStream(of: Void.self)
        test.setMockMethodCallHandler(channel: "example/slow") { _ in
            didStart.yield()
            try await untilCancelled()
            return nil
        }
        let channel = MethodChannel(name: "example/slow", messenger: test.messenger)
        try await withHangGuard { () async throws in
            async let outcome: StandardValue = channel.invokeMethod("wait")
            for await _ in started { break }
            test.close()
            do {
                _ = try await outcome
                Issue.record("the call should fail when the session ends")
            } catch let error as ChannelError {
                #expect(error.code == .connectionClosed)
                #expect(error.channel == "example/slow")
                #expect(error.method == "wait")
            }
            // Sends after the end fail at once.
            await #expect(throws: MessengerError.self) {
                try await test.messenger.send(onChannel: "example/slow", message: nil)
            }
        }
        guard case .failed(let error)?? = test.recorder.replies(on: "example/slow").first else {
            Issue.record("the lost call should be recorded as failed")
            return
        }
        #expect(error.code == .connectionClosed)
    }

    @Test func thePeerBuildsAnyChannelByHand() async throws {
        let test = TestMessenger()
        defer { test.close() }
        BasicMessageChannel(name: "example/count", messenger: test.messenger, codec: StandardMessageCodec())
            .setMessageHandler { message in .int((message?.listValue?.count ?? -1)) }
        let fromTest = BasicMessageChannel(name: "example/count", messenger: test.peer, codec: StandardMessageCodec())
        try await withHangGuard { () async throws in
            #expect(try await fromTest.send(["a", "b", "c"]) == 3)
        }
        let record = try #require(test.recorder.records.first)
        #expect(record.direction == .received)
        #expect(record.payload == hex("0c 03") + standardString("a") + standardString("b") + standardString("c"))
        #expect(record.reply?.bytes == hex("03 03000000"))
    }
}

import ChannelBridgeChannels
import ChannelBridgeCodec
import ChannelBridgeMessenger
import ChannelBridgeTestSupport
import ChannelBridgeTesting
import Testing

/// `setMockMessageHandler` (raw bytes and typed) and `allMessagesHandler`.
@Suite struct MockMessageHandlerTests {
    @Test func rawHandlerSeesTheBytesAndAnswersThem() async throws {
        let test = TestMessenger(role: .client)
        defer { test.close() }
        let seen = Collector<[UInt8]?>()
        test.setMockMessageHandler(channel: "example/echo") { message in
            seen.append(message)
            return message.map { $0.reversed() }
        }
        try await withHangGuard { () async throws in
            #expect(try await test.messenger.send(onChannel: "example/echo", message: [1, 2, 3]) == [3, 2, 1])
            #expect(try await test.messenger.send(onChannel: "example/echo", message: []) == [])
            #expect(try await test.messenger.send(onChannel: "example/echo", message: nil) == nil)
        }
        // A null payload stays distinct from an empty one, both ways.
        #expect(seen.all == [[1, 2, 3], [], nil])
        #expect(
            test.recorder.replies(on: "example/echo")
                == [.payload([3, 2, 1], envelope: nil), .payload([], envelope: nil), .null])
        #expect(test.recorder.records.map(\.payload) == [[1, 2, 3], [], nil])
    }

    @Test func aThrowingRawHandlerFailsTheRequest() async throws {
        struct Refused: Error, CustomStringConvertible { var description: String { "refused by the test" } }
        let test = TestMessenger(role: .client)
        defer { test.close() }
        test.setMockMessageHandler(channel: "example/echo") { _ in throw Refused() }
        try await withHangGuard { () async throws in
            do {
                _ = try await test.messenger.send(onChannel: "example/echo", message: [1])
                Issue.record("the send should fail")
            } catch let error as MessengerError {
                #expect(error.code == .handlerFailed)
                #expect(error.message == "refused by the test")
                #expect(error.channel == "example/echo")
            }
        }
        #expect(
            test.recorder.replies(on: "example/echo")
                == [.failed(MessengerError(.handlerFailed, "refused by the test", channel: "example/echo"))])
    }

    @Test func typedHandlerAnswersABasicMessageChannel() async throws {
        let test = TestMessenger(role: .client)
        defer { test.close() }
        test.setMockMessageHandler(channel: "example/log", codec: StringCodec()) { line in
            "logged: \(line ?? "<null>")"
        }
        let log = BasicMessageChannel(name: "example/log", messenger: test.messenger, codec: StringCodec())
        try await withHangGuard { () async throws in
            #expect(try await log.send("started") == "logged: started")
            #expect(try await log.send(nil) == "logged: <null>")
        }
        #expect(test.recorder.records(on: "example/log").map(\.payload) == [utf8("started"), nil])
        #expect(
            test.recorder.replies(on: "example/log").map { $0?.bytes }
                == [utf8("logged: started"), utf8("logged: <null>")])
        // Text is no method call: nothing decoded.
        #expect(test.recorder.calls(on: "example/log").isEmpty)

        test.setMockMessageHandler(channel: "example/log", codec: StringCodec(), nil)
        try await withHangGuard { () async throws in
            #expect(try await log.send("after removal") == nil)
        }
    }

    @Test func allMessagesHandlerSeesEveryChannelFirst() async throws {
        let test = TestMessenger(role: .client)
        defer { test.close() }
        let seen = Collector<String>()
        let (arrivals, arrived) = AsyncStream.makeStream(of: String.self)
        test.setMockMessageHandler(channel: "example/mocked") { _ in [0xAA] }
        test.allMessagesHandler = { channel, message, passThrough in
            seen.append(channel)
            arrived.yield(channel)
            switch channel {
            case "example/mocked": return try await passThrough(message)
            case "example/intercepted": return [0xBB] + (message ?? [])
            default: return try await passThrough(message)  // no mock: a null reply
            }
        }
        try await withHangGuard { () async throws in
            #expect(try await test.messenger.send(onChannel: "example/mocked", message: [1]) == [0xAA])
            #expect(try await test.messenger.send(onChannel: "example/intercepted", message: [2]) == [0xBB, 2])
            #expect(try await test.messenger.send(onChannel: "example/unmocked", message: [3]) == nil)
            try test.messenger.post(onChannel: "example/one-way", message: [4])
            // A one-way message has no reply to wait for: wait for it to arrive.
            for await channel in arrivals where channel == "example/one-way" { break }
        }
        #expect(seen.all == ["example/mocked", "example/intercepted", "example/unmocked", "example/one-way"])
        #expect(test.recorder.records.map(\.kind) == [.request, .request, .request, .message])

        // Without the interceptor, messages go straight to the mocks again.
        test.allMessagesHandler = nil
        try await withHangGuard { () async throws in
            #expect(try await test.messenger.send(onChannel: "example/intercepted", message: [5]) == nil)
        }
        #expect(seen.all.count == 4)
    }

    @Test func allMessagesHandlerCanDecodeAndAnswerMethodCalls() async throws {
        let test = TestMessenger(role: .client)
        defer { test.close() }
        let codec = StandardMethodCodec()
        test.allMessagesHandler = { channel, message, _ in
            let call = try codec.decodeMethodCall(message ?? [])
            return try codec.encodeSuccessEnvelope(.string("\(channel) \(call.method)"))
        }
        let a = MethodChannel(name: "example/a", messenger: test.messenger)
        let b = MethodChannel(name: "example/b", messenger: test.messenger)
        try await withHangGuard { () async throws in
            #expect(try await a.invokeMethod("one") == "example/a one")
            #expect(try await b.invokeMethod("two") == "example/b two")
        }
        #expect(test.recorder.calls(on: "example/a").map(\.method) == ["one"])
        #expect(test.recorder.calls(on: "example/b").map(\.method) == ["two"])
    }
}

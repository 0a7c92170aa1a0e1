import ChannelBridgeChannels
import ChannelBridgeCodec
import ChannelBridgeMessenger
import ChannelBridgeTestSupport
import ChannelBridgeTesting
import Testing

private let channelName = "test/messages"

@Suite struct BasicMessageChannelTests {
    @Test func stringCodec() async throws {
        let messenger = RecordingMessenger { _, _ in utf8("yo") }
        let channel = BasicMessageChannel(name: channelName, messenger: messenger, codec: StringCodec())
        #expect(try await channel.send("hi") == "yo")
        #expect(
            messenger.entries == [
                .request(channel: channelName, message: hex("6869")),
                .reply(channel: channelName, reply: hex("796f")),
            ])
    }

    @Test func nullReplyIsNilAndNilIsANullPayload() async throws {
        let messenger = RecordingMessenger()
        let channel = BasicMessageChannel(name: channelName, messenger: messenger, codec: StringCodec())
        #expect(try await channel.send(nil) == nil)
        #expect(messenger.entries.first == .request(channel: channelName, message: nil))
    }

    @Test func binaryCodecKeepsEmptyDistinctFromNull() async throws {
        let messenger = RecordingMessenger { _, message in message }
        let channel = BasicMessageChannel(name: channelName, messenger: messenger, codec: BinaryCodec())
        #expect(try await channel.send([]) == [])
        #expect(try await channel.send([0, 255]) == [0, 255])
        #expect(try await channel.send(nil) == nil)
        #expect(
            messenger.entries.filter { if case .request = $0 { true } else { false } } == [
                .request(channel: channelName, message: []),
                .request(channel: channelName, message: [0, 255]),
                .request(channel: channelName, message: nil),
            ])
    }

    @Test func standardCodec() async throws {
        let messenger = RecordingMessenger { _, _ in hex("03 2a000000") }
        let channel = BasicMessageChannel(name: channelName, messenger: messenger, codec: StandardMessageCodec())
        #expect(try await channel.send(.string("a")) == .int32(42))
        #expect(messenger.entries.first == .request(channel: channelName, message: hex("07 01 61")))
    }

    @Test func jsonCodec() async throws {
        let messenger = RecordingMessenger { _, _ in utf8(#"{"ok":true}"#) }
        let channel = BasicMessageChannel(name: channelName, messenger: messenger, codec: JSONMessageCodec())
        #expect(try await channel.send(.map(["a": .int32(1)])) == .map(["ok": .bool(true)]))
        #expect(messenger.entries.first == .request(channel: channelName, message: utf8(#"{"a":1}"#)))
    }

    @Test func undecodableReplyIsMalformedReply() async throws {
        let messenger = RecordingMessenger { _, _ in hex("ff") }
        let channel = BasicMessageChannel(name: channelName, messenger: messenger, codec: StringCodec())
        let error = try await #require(throws: ChannelError.self) { try await channel.send("hi") }
        #expect(error.code == .malformedReply)
        #expect(error.channel == channelName)
        #expect(error.codecError?.code == .invalidUTF8)
    }

    @Test func unencodableMessageSendsNothing() async throws {
        let messenger = RecordingMessenger()
        let channel = BasicMessageChannel(name: channelName, messenger: messenger, codec: JSONMessageCodec())
        let error = try await #require(throws: ChannelError.self) { try await channel.send(.float64(.nan)) }
        #expect(error.code == .unencodable)
        #expect(messenger.entries.isEmpty)
    }

    @Test func connectionClosedNamesTheChannel() async throws {
        let messenger = RecordingMessenger { _, _ in
            try await untilCancelled()
            return nil
        }
        let channel = BasicMessageChannel(name: channelName, messenger: messenger, codec: StringCodec())
        try await withHangGuard { () async throws in
            let send = Task { try await channel.send("hi") }
            await messenger.waitUntil { $0.count == 1 }
            messenger.close()
            let error = try await #require(throws: ChannelError.self) { try await send.value }
            #expect(error.code == .connectionClosed)
            #expect(error.channel == channelName)
            #expect(error.method == nil)
        }
    }

    @Test func timeoutWithdrawsTheRequest() async throws {
        let messenger = RecordingMessenger { _, _ in
            try await untilCancelled()
            return nil
        }
        let channel = BasicMessageChannel(name: channelName, messenger: messenger, codec: StringCodec())
        try await withHangGuard { () async throws in
            let error = try await #require(throws: ChannelError.self) {
                try await channel.send("hi", timeout: .milliseconds(20))
            }
            #expect(error.code == .timedOut && error.channel == channelName && error.method == nil)
            #expect(messenger.entries.last == .cancel(channel: channelName))
        }
    }

    @Test func handlerGetsDecodedMessagesAndNil() async throws {
        let messenger = RecordingMessenger()
        let channel = BasicMessageChannel(name: channelName, messenger: messenger, codec: StringCodec())
        let received = Inbox<String?>()
        channel.setMessageHandler { message in
            received.put(message)
            return message.map { "echo: " + $0 }
        }
        #expect(try await messenger.deliver(onChannel: channelName, message: utf8("hi")) == utf8("echo: hi"))
        #expect(try await messenger.deliver(onChannel: channelName, message: nil) == nil)
        #expect(received.waiting == ["hi", nil])
    }

    @Test func undecodableMessageFailsNamingTheChannel() async throws {
        let messenger = RecordingMessenger()
        let channel = BasicMessageChannel(name: channelName, messenger: messenger, codec: StringCodec())
        channel.setMessageHandler { $0 }
        let error = try await #require(throws: ChannelError.self) {
            try await messenger.deliver(onChannel: channelName, message: hex("c3"))
        }
        #expect(error.code == .malformedMessage)
        #expect(error.channel == channelName)
    }

    @Test func handlerErrorReachesTheSenderAsHandlerFailed() async throws {
        struct Refused: Error, CustomStringConvertible { var description: String { "refused" } }
        let messenger = RecordingMessenger()
        messenger.loopBack()
        let channel = BasicMessageChannel(name: channelName, messenger: messenger, codec: StandardMessageCodec())
        channel.setMessageHandler { _ in throw Refused() }
        let error = try await #require(throws: ChannelError.self) { try await channel.send(.null) }
        #expect(error.code == .handlerFailed && error.message == "refused" && error.channel == channelName)
        #expect(error.messengerError?.code == .handlerFailed)
    }

    @Test func roundTripThroughLoopBack() async throws {
        let messenger = RecordingMessenger()
        messenger.loopBack()
        let channel = BasicMessageChannel(name: channelName, messenger: messenger, codec: JSONMessageCodec())
        channel.setMessageHandler { message in .list([message ?? .null, .string("back")]) }
        #expect(try await channel.send(.int32(1)) == .list([.int32(1), .string("back")]))
        channel.setMessageHandler(nil)
        #expect(try await channel.send(.int32(1)) == nil)  // no handler: null reply
    }
}

import ChannelBridgeChannels
import ChannelBridgeCodec
import ChannelBridgeMessenger
import ChannelBridgeTestSupport
import ChannelBridgeTesting
import Testing

private let channelName = "test/events"
private let listenCall = hex("07 06 6c697374656e")  // "listen" without arguments
private let cancelCall = hex("07 06 63616e63656c")
private let successNull = hex("00 00")

private func listen(_ arguments: [UInt8] = hex("00")) -> [UInt8] { listenCall + arguments }
private func cancel(_ arguments: [UInt8] = hex("00")) -> [UInt8] { cancelCall + arguments }

private func posts(_ entries: [RecordingMessenger.Entry]) -> [[UInt8]?] {
    entries.compactMap { if case .message(_, let message) = $0 { message } else { nil } }
}

@Suite struct EventChannelOwnerTests {
    @Test func listenReplyGoesOutBeforeEventsSentDuringOnListen() async throws {
        let messenger = RecordingMessenger()
        let handler = ScriptedStreamHandler { _, events in
            events.success(.int32(1))
            events.error(MethodError(code: "E"))
            events.endOfStream()
            events.success(.int32(2))  // after the end: ignored
        }
        EventChannel(name: channelName, messenger: messenger).setStreamHandler(handler)
        try await withHangGuard { () async throws in
            #expect(try await messenger.deliver(onChannel: channelName, message: listen()) == successNull)
            await messenger.waitUntil { posts($0).count == 3 }
            #expect(
                messenger.entries == [
                    .handlerReply(channel: channelName, reply: successNull),
                    .message(channel: channelName, message: hex("00 03 01000000")),
                    .message(channel: channelName, message: hex("01 07 01 45 00 00")),
                    .message(channel: channelName, message: nil),
                ])
            #expect(await handler.calls.next() == .listen(.null))
        }
    }

    @Test func eventsFromAnotherTaskKeepTheirOrder() async throws {
        let messenger = RecordingMessenger()
        let handler = ScriptedStreamHandler { _, events in
            Task {
                for n in 0..<200 { events.success(.int32(Int32(n))) }
                events.endOfStream()
            }
        }
        EventChannel(name: channelName, messenger: messenger).setStreamHandler(handler)
        try await withHangGuard { () async throws in
            _ = try await messenger.deliver(onChannel: channelName, message: listen())
            await messenger.waitUntil { posts($0).last == .some(nil) }
            let codec = StandardMethodCodec()
            let expected: [[UInt8]?] = try (0..<200).map { try codec.encodeSuccessEnvelope(.int32(Int32($0))) } + [nil]
            #expect(posts(messenger.entries) == expected)
            #expect(messenger.entries.first == .handlerReply(channel: channelName, reply: successNull))
        }
    }

    @Test func listenArgumentsReachOnListen() async throws {
        let messenger = RecordingMessenger()
        let handler = ScriptedStreamHandler()
        EventChannel(name: channelName, messenger: messenger).setStreamHandler(handler)
        try await withHangGuard { () async throws in
            _ = try await messenger.deliver(onChannel: channelName, message: listen(hex("07 01 61")))
            #expect(await handler.calls.next() == .listen(.string("a")))
        }
    }

    @Test func onListenMethodErrorIsTheReplyAndNoEventsFollow() async throws {
        let messenger = RecordingMessenger()
        let handler = ScriptedStreamHandler { _, events in
            events.success(.int32(1))
            throw MethodError(code: "NOPE", message: "no")
        }
        EventChannel(name: channelName, messenger: messenger).setStreamHandler(handler)
        try await withHangGuard { () async throws in
            #expect(
                try await messenger.deliver(onChannel: channelName, message: listen())
                    == hex("01 07 04 4e4f5045 07 02 6e6f 00"))
            #expect(handler.allSinks.first?.isActive == false)
            // Nothing is active, so a cancel is refused; and the held-back event was dropped.
            #expect(
                try await messenger.deliver(onChannel: channelName, message: cancel())
                    == hex("01 07 05 6572726f72 07 1a") + utf8("No active stream to cancel") + hex("00"))
            #expect(posts(messenger.entries).isEmpty)
            #expect(await handler.calls.next() == .listen(.null))
            #expect(handler.calls.waiting.isEmpty)  // onCancel not called for a refused listen
        }
    }

    @Test func onListenOtherErrorIsCodeError() async throws {
        struct Broken: Error, CustomStringConvertible { var description: String { "broken" } }
        let messenger = RecordingMessenger()
        EventChannel(name: channelName, messenger: messenger)
            .setStreamHandler(ScriptedStreamHandler { _, _ in throw Broken() })
        #expect(
            try await messenger.deliver(onChannel: channelName, message: listen())
                == hex("01 07 05 6572726f72 07 06 62726f6b656e 00"))
    }

    @Test func cancelWithoutAStreamIsRefusedAsFlutterDoes() async throws {
        let messenger = RecordingMessenger()
        let handler = ScriptedStreamHandler()
        EventChannel(name: channelName, messenger: messenger).setStreamHandler(handler)
        #expect(
            try await messenger.deliver(onChannel: channelName, message: cancel())
                == hex("01 07 05 6572726f72 07 1a 4e6f206163746976652073747265616d20746f2063616e63656c 00"))
        #expect(handler.calls.waiting.isEmpty)
    }

    @Test func cancelStopsTheStreamWithItsOwnArguments() async throws {
        let messenger = RecordingMessenger()
        let handler = ScriptedStreamHandler()
        EventChannel(name: channelName, messenger: messenger).setStreamHandler(handler)
        try await withHangGuard { () async throws in
            _ = try await messenger.deliver(onChannel: channelName, message: listen(hex("03 01000000")))
            let sink = try #require(handler.allSinks.first)
            sink.success(.int32(5))
            #expect(sink.isActive)
            #expect(
                try await messenger.deliver(onChannel: channelName, message: cancel(hex("03 02000000"))) == successNull)
            #expect(!sink.isActive)
            sink.success(.int32(6))  // ignored: cancelled
            sink.endOfStream()  // ignored too
            #expect(await handler.calls.next() == .listen(.int32(1)))
            #expect(await handler.calls.next() == .cancel(.int32(2)))
            #expect(posts(messenger.entries) == [hex("00 03 05000000")])
            // The stream is gone: a second cancel is refused.
            let again = try #require(try await messenger.deliver(onChannel: channelName, message: cancel()))
            #expect(
                try StandardMethodCodec().decodeEnvelope(again)
                    == .error(MethodError(code: "error", message: "No active stream to cancel")))
        }
    }

    @Test func onCancelErrorAnswersTheCancel() async throws {
        let messenger = RecordingMessenger()
        EventChannel(name: channelName, messenger: messenger)
            .setStreamHandler(ScriptedStreamHandler(onCancel: { _ in throw MethodError(code: "STUCK") }))
        _ = try await messenger.deliver(onChannel: channelName, message: listen())
        #expect(
            try await messenger.deliver(onChannel: channelName, message: cancel())
                == hex("01 07 05 535455434b 00 00"))
    }

    @Test func secondListenCancelsTheFirstStreamFirst() async throws {
        let messenger = RecordingMessenger()
        let handler = ScriptedStreamHandler()
        EventChannel(name: channelName, messenger: messenger).setStreamHandler(handler)
        try await withHangGuard { () async throws in
            _ = try await messenger.deliver(onChannel: channelName, message: listen(hex("03 01000000")))
            _ = try await messenger.deliver(onChannel: channelName, message: listen(hex("03 02000000")))
            #expect(await handler.calls.next() == .listen(.int32(1)))
            #expect(await handler.calls.next() == .cancel(.int32(1)))
            #expect(await handler.calls.next() == .listen(.int32(2)))
            let sinks = handler.allSinks
            #expect(sinks.count == 2)
            #expect(!sinks[0].isActive && sinks[1].isActive)
            sinks[0].success(.int32(10))
            sinks[1].success(.int32(20))
            await messenger.waitUntil { posts($0).count == 1 }
            #expect(posts(messenger.entries) == [hex("00 03 14000000")])
        }
    }

    @Test func connectionCloseCancelsTheActiveStream() async throws {
        let messenger = RecordingMessenger()
        let handler = ScriptedStreamHandler()
        EventChannel(name: channelName, messenger: messenger).setStreamHandler(handler)
        try await withHangGuard { () async throws in
            _ = try await messenger.deliver(onChannel: channelName, message: listen(hex("03 07000000")))
            messenger.close()
            #expect(await handler.calls.next() == .listen(.int32(7)))
            #expect(await handler.calls.next() == .cancel(.int32(7)))
            #expect(handler.allSinks.first?.isActive == false)
        }
    }

    @Test func replacingTheHandlerEndsAndCancelsTheStream() async throws {
        let messenger = RecordingMessenger()
        let handler = ScriptedStreamHandler()
        let channel = EventChannel(name: channelName, messenger: messenger)
        channel.setStreamHandler(handler)
        try await withHangGuard { () async throws in
            _ = try await messenger.deliver(onChannel: channelName, message: listen())
            channel.setStreamHandler(nil)
            #expect(await handler.calls.next() == .listen(.null))
            #expect(await handler.calls.next() == .cancel(.null))
            #expect(posts(messenger.entries) == [nil])
            #expect(!messenger.hasHandler(onChannel: channelName))
        }
    }

    @Test func otherMethodsAreNotImplementedAndBadCallsMalformed() async throws {
        let messenger = RecordingMessenger()
        EventChannel(name: channelName, messenger: messenger).setStreamHandler(ScriptedStreamHandler())
        #expect(try await messenger.deliver(onChannel: channelName, message: hex("07 05 7061757365 00")) == nil)
        let reply = try #require(try await messenger.deliver(onChannel: channelName, message: hex("03 01000000")))
        guard case .error(let error) = try StandardMethodCodec().decodeEnvelope(reply) else {
            Issue.record("expected an error envelope")
            return
        }
        #expect(error.code == "malformed")
    }
}

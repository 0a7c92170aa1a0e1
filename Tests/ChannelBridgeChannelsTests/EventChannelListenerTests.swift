import ChannelBridgeChannels
import ChannelBridgeCodec
import ChannelBridgeMessenger
import ChannelBridgeTestSupport
import ChannelBridgeTesting
import Testing

private let channelName = "test/events"
private let listenCall = hex("07 06 6c697374656e")
private let cancelCall = hex("07 06 63616e63656c")

/// Answers `listen` and `cancel` with a success envelope, like an owner that accepts everything.
private let acceptingOwner: RecordingMessenger.Responder = { _, _ in hex("00 00") }

private func requests(_ entries: [RecordingMessenger.Entry]) -> [[UInt8]?] {
    entries.compactMap { if case .request(_, let message) = $0 { message } else { nil } }
}

private func hasCancel(_ entries: [RecordingMessenger.Entry]) -> Bool {
    requests(entries).contains { $0.map { $0.starts(with: cancelCall) } ?? false }
}

@Suite struct EventChannelListenerTests {
    @Test func eventsErrorEventsAndEndOfStream() async throws {
        let messenger = RecordingMessenger(responder: acceptingOwner)
        let channel = EventChannel(name: channelName, messenger: messenger)
        try await withHangGuard { () async throws in
            let stream = channel.receiveBroadcastStream(arguments: .int32(3))
            await messenger.waitUntil { $0.contains(.reply(channel: channelName, reply: hex("00 00"))) }
            await messenger.deliverMessage(onChannel: channelName, message: hex("00 03 01000000"))
            await messenger.deliverMessage(onChannel: channelName, message: hex("01 07 01 45 00 00"))
            await messenger.deliverMessage(onChannel: channelName, message: hex("00 03 02000000"))
            await messenger.deliverMessage(onChannel: channelName, message: nil)
            var events: [EventChannel.Event] = []
            for try await event in stream { events.append(event) }
            #expect(events == [.success(.int32(1)), .error(MethodError(code: "E")), .success(.int32(2))])
            // Like Flutter's listener, the end of the stream is followed by a cancel with the listen arguments.
            await messenger.waitUntil(hasCancel)
            #expect(requests(messenger.entries) == [listenCall + hex("03 03000000"), cancelCall + hex("03 03000000")])
            #expect(!messenger.hasHandler(onChannel: channelName))
        }
    }

    @Test func eventsBeforeTheListenReplyAreDelivered() async throws {
        let gate = Inbox<Void>()
        let messenger = RecordingMessenger { _, message in
            if message?.starts(with: listenCall) == true { await gate.next() }
            return hex("00 00")
        }
        let channel = EventChannel(name: channelName, messenger: messenger)
        try await withHangGuard { () async throws in
            let stream = channel.receiveBroadcastStream()
            await messenger.waitUntil { !requests($0).isEmpty }
            await messenger.deliverMessage(onChannel: channelName, message: hex("00 07 05 6561726c79"))
            gate.put(())
            var iterator = stream.makeAsyncIterator()
            #expect(try await iterator.next() == .success(.string("early")))
        }
    }

    @Test func stoppingTheConsumerSendsCancel() async throws {
        let messenger = RecordingMessenger(responder: acceptingOwner)
        let channel = EventChannel(name: channelName, messenger: messenger)
        try await withHangGuard { () async throws in
            // The stream terminates when the loop leaves it and it is released, as AsyncStream does.
            let consumer = Task { () async throws -> EventChannel.Event? in
                for try await event in channel.receiveBroadcastStream(arguments: .string("a")) { return event }
                return nil
            }
            await messenger.waitUntil { $0.count == 2 }
            await messenger.deliverMessage(onChannel: channelName, message: hex("00 03 01000000"))
            #expect(try await consumer.value == .success(.int32(1)))
            await messenger.waitUntil(hasCancel)
            #expect(requests(messenger.entries).last == cancelCall + hex("07 01 61"))
        }
    }

    @Test func cancellingTheConsumingTaskSendsCancel() async throws {
        let messenger = RecordingMessenger(responder: acceptingOwner)
        let channel = EventChannel(name: channelName, messenger: messenger)
        try await withHangGuard { () async throws in
            let consumer = Task {
                for try await _ in channel.receiveBroadcastStream() {}
            }
            await messenger.waitUntil { $0.count == 2 }
            consumer.cancel()
            await messenger.waitUntil(hasCancel)
            _ = await consumer.result
        }
    }

    @Test func droppingTheStreamSendsCancel() async throws {
        let messenger = RecordingMessenger(responder: acceptingOwner)
        let channel = EventChannel(name: channelName, messenger: messenger)
        try await withHangGuard { () async throws in
            _ = channel.receiveBroadcastStream()
            await messenger.waitUntil(hasCancel)
        }
    }

    @Test func refusedListenThrowsItsErrorAndSendsNoCancel() async throws {
        let messenger = RecordingMessenger { _, _ in hex("01 07 04 4e4f5045 00 00") }
        let channel = EventChannel(name: channelName, messenger: messenger)
        try await withHangGuard { () async throws in
            await #expect(throws: MethodError(code: "NOPE")) {
                for try await _ in channel.receiveBroadcastStream() {}
            }
            // A later round trip would come after a wrongly sent cancel.
            _ = try? await MethodChannel(name: "test/probe", messenger: messenger).invokeMethod("probe")
            #expect(!hasCancel(messenger.entries))
        }
    }

    @Test func listenWithoutOwnerIsNotImplemented() async throws {
        let messenger = RecordingMessenger()
        let channel = EventChannel(name: channelName, messenger: messenger)
        try await withHangGuard { () async throws in
            let error = try await #require(throws: ChannelError.self) {
                for try await _ in channel.receiveBroadcastStream() {}
            }
            #expect(error.code == .notImplemented)
            #expect(error.channel == channelName && error.method == "listen")
        }
    }

    @Test func connectionCloseEndsTheStreamWithConnectionClosed() async throws {
        let messenger = RecordingMessenger(responder: acceptingOwner)
        let channel = EventChannel(name: channelName, messenger: messenger)
        try await withHangGuard { () async throws in
            let stream = channel.receiveBroadcastStream()
            await messenger.waitUntil { $0.count == 2 }
            messenger.close()
            let error = try await #require(throws: ChannelError.self) {
                for try await _ in stream {}
            }
            #expect(error.code == .connectionClosed)
            #expect(error.channel == channelName)
        }
    }

    @Test func connectionCloseDuringListenEndsTheStream() async throws {
        let messenger = RecordingMessenger { _, _ in
            try await untilCancelled()
            return nil
        }
        let channel = EventChannel(name: channelName, messenger: messenger)
        try await withHangGuard { () async throws in
            let stream = channel.receiveBroadcastStream()
            await messenger.waitUntil { $0.count == 1 }
            messenger.close()
            let error = try await #require(throws: ChannelError.self) {
                for try await _ in stream {}
            }
            #expect(error.code == .connectionClosed)
        }
    }

    @Test func undecodableEventEndsTheStreamAndCancels() async throws {
        let messenger = RecordingMessenger(responder: acceptingOwner)
        let channel = EventChannel(name: channelName, messenger: messenger)
        try await withHangGuard { () async throws in
            let stream = channel.receiveBroadcastStream()
            await messenger.waitUntil { $0.count == 2 }
            await messenger.deliverMessage(onChannel: channelName, message: hex("07"))
            let error = try await #require(throws: ChannelError.self) {
                for try await _ in stream {}
            }
            #expect(error.code == .malformedEvent)
            #expect(error.channel == channelName)
            await messenger.waitUntil(hasCancel)
        }
    }

    @Test func secondListenReplacesTheFirst() async throws {
        let messenger = RecordingMessenger(responder: acceptingOwner)
        let channel = EventChannel(name: channelName, messenger: messenger)
        try await withHangGuard { () async throws in
            let first = channel.receiveBroadcastStream(arguments: .int32(1))
            await messenger.waitUntil { $0.count == 2 }
            let second = channel.receiveBroadcastStream(arguments: .int32(2))
            await messenger.waitUntil { $0.count == 4 }
            // The first finishes quietly: the owner cancels it when it gets the second listen.
            for try await _ in first { Issue.record("the replaced stream got an event") }
            await messenger.deliverMessage(onChannel: channelName, message: hex("00 03 02000000"))
            var iterator = second.makeAsyncIterator()
            #expect(try await iterator.next() == .success(.int32(2)))
            _ = try? await MethodChannel(name: "test/probe", messenger: messenger).invokeMethod("probe")
            #expect(requests(messenger.entries).filter { $0?.starts(with: listenCall) == true }.count == 2)
            #expect(!hasCancel(messenger.entries))
        }
    }

    @Test func cancelOfAnEndedStreamPrecedesTheNextListen() async throws {
        let messenger = RecordingMessenger(responder: acceptingOwner)
        let channel = EventChannel(name: channelName, messenger: messenger)
        try await withHangGuard { () async throws in
            let first = channel.receiveBroadcastStream(arguments: .int32(1))
            await messenger.deliverMessage(onChannel: channelName, message: nil)
            for try await _ in first { Issue.record("no events were sent") }
            let second = channel.receiveBroadcastStream(arguments: .int32(2))
            await messenger.waitUntil { requests($0).count == 3 }
            #expect(
                requests(messenger.entries) == [
                    listenCall + hex("03 01000000"), cancelCall + hex("03 01000000"), listenCall + hex("03 02000000"),
                ])
            _ = second
        }
    }

    @Test func jsonCodecListen() async throws {
        let messenger = RecordingMessenger { _, _ in utf8("[null]") }
        let channel = EventChannel(name: channelName, messenger: messenger, codec: JSONMethodCodec())
        try await withHangGuard { () async throws in
            let stream = channel.receiveBroadcastStream(arguments: .string("x"))
            await messenger.waitUntil { $0.count == 2 }
            await messenger.deliverMessage(onChannel: channelName, message: utf8(#"[{"n":1}]"#))
            await messenger.deliverMessage(onChannel: channelName, message: utf8(#"["E","m",null]"#))
            await messenger.deliverMessage(onChannel: channelName, message: nil)
            var events: [EventChannel.Event] = []
            for try await event in stream { events.append(event) }
            #expect(events == [.success(.map(["n": .int32(1)])), .error(MethodError(code: "E", message: "m"))])
            #expect(requests(messenger.entries).first == utf8(#"{"method":"listen","args":"x"}"#))
        }
    }
}

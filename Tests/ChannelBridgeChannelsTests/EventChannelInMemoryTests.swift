import ChannelBridgeChannels
import ChannelBridgeCodec
import ChannelBridgeMessenger
import ChannelBridgeTestSupport
import ChannelBridgeTesting
import Synchronization
import Testing

private let channelName = "test/ticks"

/// Event channels over a real pair of `MessengerConnection`s joined in memory.
@Suite struct EventChannelInMemoryTests {
    @Test func eventsErrorEventsAndEndOfStream() async throws {
        let (client, host) = InMemoryMessenger.makePair()
        defer { client.close() }
        let handler = ScriptedStreamHandler { arguments, events in
            guard case .int32(let count) = arguments else { throw MethodError(code: "WRONG_TYPE") }
            Task {
                for n in 0..<count {
                    if n == 1 { events.error(MethodError(code: "ODD", message: "one", details: .int32(n))) }
                    events.success(.int32(n))
                }
                events.endOfStream()
            }
        }
        EventChannel(name: channelName, messenger: host).setStreamHandler(handler)
        let listener = EventChannel(name: channelName, messenger: client)
        try await withHangGuard { () async throws in
            var events: [EventChannel.Event] = []
            for try await event in listener.receiveBroadcastStream(arguments: .int32(3)) { events.append(event) }
            #expect(
                events == [
                    .success(.int32(0)), .error(MethodError(code: "ODD", message: "one", details: .int32(1))),
                    .success(.int32(1)), .success(.int32(2)),
                ])
            // The listener cancels after the end, so the owner's onCancel runs exactly once.
            #expect(await handler.calls.next() == .listen(.int32(3)))
            #expect(await handler.calls.next() == .cancel(.int32(3)))
        }
    }

    @Test func refusedListen() async throws {
        let (client, host) = InMemoryMessenger.makePair()
        defer { client.close() }
        EventChannel(name: channelName, messenger: host)
            .setStreamHandler(ScriptedStreamHandler { _, _ in throw MethodError(code: "DENIED", message: "no") })
        try await withHangGuard { () async throws in
            await #expect(throws: MethodError(code: "DENIED", message: "no")) {
                for try await _ in EventChannel(name: channelName, messenger: client).receiveBroadcastStream() {}
            }
        }
    }

    @Test func consumerCancelReachesTheOwner() async throws {
        let (client, host) = InMemoryMessenger.makePair()
        defer { client.close() }
        let handler = ScriptedStreamHandler { _, events in
            Task {
                var n: Int32 = 0
                while events.isActive {
                    events.success(.int32(n))
                    n += 1
                    try await Task.sleep(for: .milliseconds(1))
                }
            }
        }
        EventChannel(name: channelName, messenger: host).setStreamHandler(handler)
        let listener = EventChannel(name: channelName, messenger: client)
        try await withHangGuard { () async throws in
            var seen: [Int32] = []
            for try await event in listener.receiveBroadcastStream(arguments: .string("go")) {
                guard case .success(.int32(let n)) = event else { Issue.record("unexpected \(event)"); break }
                seen.append(n)
                if seen.count == 5 { break }
            }
            #expect(seen == [0, 1, 2, 3, 4])
            #expect(await handler.calls.next() == .listen(.string("go")))
            #expect(await handler.calls.next() == .cancel(.string("go")))
            #expect(handler.allSinks.first?.isActive == false)
        }
    }

    @Test func secondListenReplacesTheFirst() async throws {
        let (client, host) = InMemoryMessenger.makePair()
        defer { client.close() }
        let handler = ScriptedStreamHandler { arguments, events in events.success(arguments) }
        EventChannel(name: channelName, messenger: host).setStreamHandler(handler)
        let listener = EventChannel(name: channelName, messenger: client)
        try await withHangGuard { () async throws in
            let first = listener.receiveBroadcastStream(arguments: .int32(1))
            var firstEvents = first.makeAsyncIterator()
            #expect(try await firstEvents.next() == .success(.int32(1)))
            let second = listener.receiveBroadcastStream(arguments: .int32(2))
            var secondEvents = second.makeAsyncIterator()
            #expect(try await secondEvents.next() == .success(.int32(2)))
            #expect(try await firstEvents.next() == nil)  // the first stream finished
            #expect(await handler.calls.next() == .listen(.int32(1)))
            #expect(await handler.calls.next() == .cancel(.int32(1)))
            #expect(await handler.calls.next() == .listen(.int32(2)))
            let sinks = handler.allSinks
            #expect(!sinks[0].isActive && sinks[1].isActive)
        }
    }

    @Test func closingTheConnectionEndsBothSides() async throws {
        let (client, host) = InMemoryMessenger.makePair()
        let handler = ScriptedStreamHandler { _, events in events.success(.string("first")) }
        EventChannel(name: channelName, messenger: host).setStreamHandler(handler)
        let listener = EventChannel(name: channelName, messenger: client)
        try await withHangGuard { () async throws in
            let stream = listener.receiveBroadcastStream(arguments: .int32(9))
            var events = stream.makeAsyncIterator()
            #expect(try await events.next() == .success(.string("first")))
            host.close()
            let error = try await #require(throws: ChannelError.self) { _ = try await events.next() }
            #expect(error.code == .connectionClosed)
            #expect(error.channel == channelName)
            #expect(await handler.calls.next() == .listen(.int32(9)))
            #expect(await handler.calls.next() == .cancel(.int32(9)))
        }
    }

    @Test func listenReplyPrecedesEventsOnTheWire() async throws {
        let (connection, peer) = InMemoryMessenger.makeRawPeer(role: .host)
        defer { connection.close(waitForOwedReplies: false) }
        EventChannel(name: channelName, messenger: connection).setStreamHandler(
            ScriptedStreamHandler { _, events in
                events.success(.int32(1))
                events.success(.int32(2))
                events.endOfStream()
            })
        peer.send(.hello(Frame.Hello(role: .client, peerName: "raw")))
        peer.send(
            .request(
                id: 1, channel: channelName, payload: try StandardMethodCodec().encodeMethodCall(MethodCall("listen"))))
        try await withHangGuard { () async throws in
            await peer.waitForFrames { $0.count >= 5 }
            let frames = try peer.receivedFrames().dropFirst()  // after the host's HELLO
            #expect(
                Array(frames) == [
                    .reply(id: 1, result: .bytes(hex("00 00"))),
                    .message(channel: channelName, payload: hex("00 03 01000000")),
                    .message(channel: channelName, payload: hex("00 03 02000000")),
                    .message(channel: channelName, payload: nil),
                ])
        }
    }
}

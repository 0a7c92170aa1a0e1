import ChannelBridgeChannels
import ChannelBridgeCodec
import ChannelBridgeMessenger
import ChannelBridgeSocket
import Testing
import ChannelBridgeTestSupport

private typealias Support = ChannelsOverSocket

/// Event channels over a real Unix socket with the other side in a separate process.
@Suite(.serialized) struct ChannelsOverSocketEventTests {
    @Test func eventsErrorEventsAndEndOfStream() async throws {
        try await Support.withPeerHost { session in
            let arguments = Support.map([("count", .int32(5)), ("errorAt", .int32(2)), ("end", .bool(true))])
            var events: [EventChannel.Event] = []
            for try await event in session.events.receiveBroadcastStream(arguments: arguments) { events.append(event) }
            #expect(
                events == [
                    .success(.int32(0)), .success(.int32(1)),
                    .error(MethodError(code: "TICK_ERROR", message: "error before 2", details: .int32(2))),
                    .success(.int32(2)), .success(.int32(3)), .success(.int32(4)),
                ])
            // After the end the listener cancels, so the peer's onCancel ran too.
            let log = try await Support.peerEventLog(session.methods, count: 2)
            #expect(log == [Support.logEntry("listen", arguments), Support.logEntry("cancel", arguments)])
        }
    }

    @Test func stoppingTheConsumerCancelsThePeersStream() async throws {
        try await Support.withPeerHost { session in
            let arguments = Support.map([("tick", .int32(1))])
            var seen: [EventChannel.Event] = []
            for try await event in session.events.receiveBroadcastStream(arguments: arguments) {
                seen.append(event)
                if seen.count == 3 { break }
            }
            #expect(seen == [.success(.int32(0)), .success(.int32(1)), .success(.int32(2))])
            let log = try await Support.peerEventLog(session.methods, count: 2)
            #expect(log == [Support.logEntry("listen", arguments), Support.logEntry("cancel", arguments)])
        }
    }

    @Test func secondListenReplacesTheFirst() async throws {
        try await Support.withPeerHost { session in
            // One event and no end: the first stream stays open until it is replaced.
            let firstArguments = Support.map([("count", .int32(1))])
            let secondArguments = Support.map([("count", .int32(2)), ("end", .bool(true))])
            var first = session.events.receiveBroadcastStream(arguments: firstArguments).makeAsyncIterator()
            #expect(try await first.next() == .success(.int32(0)))
            var second: [EventChannel.Event] = []
            for try await event in session.events.receiveBroadcastStream(arguments: secondArguments) {
                second.append(event)
            }
            #expect(second == [.success(.int32(0)), .success(.int32(1))])
            #expect(try await first.next() == nil)  // finished, without an error
            let log = try await Support.peerEventLog(session.methods, count: 4)
            #expect(
                log == [
                    Support.logEntry("listen", firstArguments), Support.logEntry("cancel", firstArguments),
                    Support.logEntry("listen", secondArguments), Support.logEntry("cancel", secondArguments),
                ])
        }
    }

    @Test func refusedListenThrowsThePeersError() async throws {
        try await Support.withPeerHost { session in
            await #expect(throws: MethodError(code: "BAD_ARGS", message: "count must not be negative")) {
                for try await _ in session.events.receiveBroadcastStream(
                    arguments: Support.map([("count", .int32(-1))]))
                {}
            }
        }
    }

    @Test func thePeerListensToThisProcess() async throws {
        try await Support.withPeerHost { session in
            let request = Support.map([("channel", .string("test/events")), ("arguments", .int32(3))])
            let events = try await session.methods.invokeMethod("listenCollect", arguments: request)
            #expect(
                events
                    == .list([
                        .list([.string("success"), .int32(0)]),
                        .list([.string("error"), .string("TEST_ERROR"), .string("one"), .int32(1)]),
                        .list([.string("success"), .int32(1)]),
                        .list([.string("success"), .int32(2)]),
                    ]))
            #expect(await session.ticks.calls.next() == .listen(.int32(3)))
            #expect(await session.ticks.calls.next() == .cancel(.int32(3)))
        }
    }

    @Test func streamEndsWithConnectionClosedWhenThePeerDies() async throws {
        try await Support.withPeerHost { session in
            var events = session.events.receiveBroadcastStream(arguments: Support.map([("tick", .int32(5))]))
                .makeAsyncIterator()
            #expect(try await events.next() == .success(.int32(0)))
            session.peer.kill()
            let error = try await #require(throws: ChannelError.self) {
                while try await events.next() != nil {}
            }
            #expect(error.code == .connectionClosed)
            #expect(error.channel == "peer/events")
        }
    }
}

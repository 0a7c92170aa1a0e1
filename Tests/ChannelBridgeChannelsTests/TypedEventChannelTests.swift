import ChannelBridgeChannels
import ChannelBridgeCodec
import ChannelBridgeMessenger
import ChannelBridgeTestSupport
import ChannelBridgeTesting
import Synchronization
import Testing

/// Typed event streams: `receiveBroadcastStream(as:)` and `EventSink.success(encoding:)`.
@Suite struct TypedEventChannelTests {
    struct Tick: Codable, Equatable {
        var count: Int
    }

    struct Every: Codable, Equatable {
        var times: Int
    }

    @Test func eventsAreDecodedAndErrorEventsKeepTheStreamGoing() async throws {
        let (client, host) = InMemoryMessenger.makePair()
        defer { client.close() }
        let handler = ScriptedStreamHandler { arguments, events in
            let every = try StandardValueDecoder().decode(Every.self, from: arguments)
            Task {
                for n in 0..<every.times {
                    if n == 1 { events.error(MethodError(code: "SKIPPED", message: "one")) }
                    try events.success(encoding: Tick(count: n))
                }
                events.endOfStream()
            }
        }
        EventChannel(name: "test/ticks", messenger: host).setStreamHandler(handler)
        let listener = EventChannel(name: "test/ticks", messenger: client)
        try await withHangGuard { () async throws in
            var events: [Result<Tick, MethodError>] = []
            for try await event in try listener.receiveBroadcastStream(arguments: Every(times: 3), as: Tick.self) {
                events.append(event)
            }
            #expect(
                events == [
                    .success(Tick(count: 0)), .failure(MethodError(code: "SKIPPED", message: "one")),
                    .success(Tick(count: 1)), .success(Tick(count: 2)),
                ])
            #expect(await handler.calls.next() == .listen(["times": 3]))
            #expect(await handler.calls.next() == .cancel(["times": 3]))
        }
    }

    @Test func anEventOfAnotherTypeEndsTheStreamAndCancelsIt() async throws {
        let (client, host) = InMemoryMessenger.makePair()
        defer { client.close() }
        let handler = ScriptedStreamHandler { _, events in
            try events.success(encoding: Tick(count: 1))
            events.success(["count": "two"])
        }
        EventChannel(name: "test/ticks", messenger: host).setStreamHandler(handler)
        let listener = EventChannel(name: "test/ticks", messenger: client)
        try await withHangGuard { () async throws in
            var received: [Result<Tick, MethodError>] = []
            let error = try await #require(throws: ChannelError.self) {
                for try await event in listener.receiveBroadcastStream(as: Tick.self) { received.append(event) }
            }
            #expect(received == [.success(Tick(count: 1))])
            #expect(
                error
                    == ChannelError(
                        .malformedEvent, "An event is not Tick: `count`: expected an int, found String \"two\"",
                        channel: "test/ticks"))
            #expect(await handler.calls.next() == .listen(.null))
            #expect(await handler.calls.next() == .cancel(.null))
        }
    }
}

import ChannelBridgeChannels
import ChannelBridgeCodec
import ChannelBridgeMessenger
import ChannelBridgeTestSupport
import ChannelBridgeTesting
import Synchronization
import Testing

/// Typed messages on a `BasicMessageChannel` with the Standard codec.
@Suite struct TypedBasicMessageChannelTests {
    struct Point: Codable, Equatable {
        var x: Double
        var y: Double
    }

    @Test func typedMessagesAndReplies() async throws {
        let (client, host) = InMemoryMessenger.makePair()
        defer { client.close() }
        BasicMessageChannel(name: "test/points", messenger: host, codec: StandardMessageCodec())
            .setMessageHandler(as: Point?.self) { point -> Point? in
                point.map { Point(x: $0.x.rounded(), y: $0.y.rounded()) }
            }
        let channel = BasicMessageChannel(name: "test/points", messenger: client, codec: StandardMessageCodec())
        try await withHangGuard { () async throws in
            #expect(try await channel.send(Point(x: 1.4, y: 2.6), as: Point.self) == Point(x: 1, y: 3))
            #expect(try await channel.send(Point?.none, as: Point?.self) == nil)
            try await channel.send(Point(x: 0, y: 0), as: Void.self)

            // A message that is no Point never reaches the handler; the sender learns why.
            let error = try await #require(throws: ChannelError.self) {
                try await channel.send(["x": 1.5], as: Point.self)
            }
            #expect(error.code == .handlerFailed && error.channel == "test/points" && error.method == nil)
            #expect(
                error.message
                    == "malformedMessage on channel 'test/points': The message is not Optional<Point>: `y`: missing")

            // No handler: a null reply, which only an optional reads.
            let nobody = BasicMessageChannel(name: "test/nobody", messenger: client, codec: StandardMessageCodec())
            #expect(try await nobody.send(Point(x: 0, y: 0), as: Point?.self) == nil)
            let malformed = try await #require(throws: ChannelError.self) {
                try await nobody.send(Point(x: 0, y: 0), as: Point.self)
            }
            #expect(
                malformed
                    == ChannelError(
                        .malformedReply, "The reply is not Point: expected a Map, found null",
                        channel: "test/nobody"))
        }
    }
}

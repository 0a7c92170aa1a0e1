import ChannelBridgeChannels
import ChannelBridgeCodec
import ChannelBridgeMessenger
import ChannelBridgeSocket
import ChannelBridgeTestSupport
import Foundation
import Synchronization
import Testing

private typealias Support = ChannelsOverSocket

/// Method calls over a real Unix socket to a peer in another process (`channelbridge-test-peer`).
@Suite(.serialized) struct ChannelsOverSocketMethodTests {
    @Test func methodCallsBothWays() async throws {
        try await Support.withPeerHost { session in
            let value: StandardValue = .map([
                "list": .list([.int32(1), .int64(1 << 40), .float64(2.5), .null, .bool(true)]),
                "bytes": .uint8List([0, 1, 255]), "floats": .float64List([1.5, -0.0]),
            ])
            #expect(try await session.methods.invokeMethod("echo", arguments: value) == value)

            // The peer calls back into this process while it answers.
            let callBack = Support.map([("method", .string("hello")), ("arguments", .string("peer"))])
            #expect(
                try await session.methods.invokeMethod("callBack", arguments: callBack)
                    == .string("hello, peer, from the test process"))

            // An error from this process's handler travels back through the peer's handler.
            await #expect(throws: MethodError(code: "TEST_FAILED", message: "asked to fail")) {
                try await session.methods.invokeMethod(
                    "callBack", arguments: Support.map([("method", .string("fail"))]))
            }

            await #expect(throws: MethodError(code: "PEER_FAILED", message: "asked to fail", details: .int32(7))) {
                try await session.methods.invokeMethod("fail", arguments: .int32(7))
            }
            let missing = try await #require(throws: ChannelError.self) {
                try await session.methods.invokeMethod("nope")
            }
            #expect(missing.code == .notImplemented)
            #expect(missing.channel == "peer/methods" && missing.method == "nope")

            #expect(try await session.methods.invokeMethod("pid") == .int(session.peer.pid))
        }
    }

    @Test func aThousandConcurrentCallsWithOutOfOrderRepliesAreMatched() async throws {
        try await Support.withPeerHost { session in
            // One task per call: all 1,000 are in flight together.
            let matched = try await withThrowingTaskGroup(of: Bool.self) { group in
                for id in Int32(0)..<1_000 {
                    group.addTask {
                        // Different delays make later calls overtake earlier ones.
                        let delay = Int32((id * 7) % 4)
                        let reply = try await session.methods.invokeMethod(
                            "delayedEcho", arguments: .list([.int32(id), .int32(delay)]))
                        #expect(reply == .int32(id))
                        return reply == .int32(id)
                    }
                }
                return try await group.reduce(0) { $0 + ($1 ? 1 : 0) }
            }
            #expect(matched == 1_000)
        }
    }

    @Test func callsOnOneChannelArriveInOrder() async throws {
        try await Support.withPeerHost { session in
            // `Task.immediate` writes each REQUEST before the next task starts, so the send order is known.
            var calls: [Task<StandardValue, any Error>] = []
            for _ in 0..<500 {
                calls.append(Task.immediate { try await session.methods.invokeMethod("arrival") })
            }
            var arrivals: [StandardValue] = []
            for call in calls { arrivals.append(try await call.value) }
            #expect(arrivals == (1...500).map { StandardValue.int32(Int32($0)) })
        }
    }

    @Test func sixteenMebibyteUint8ListRoundTrip() async throws {
        try await Support.withPeerHost { session in
            var generator = SeededGenerator(seed: 16)
            let bytes = generator.bytes(count: 16 << 20)
            let reply = try await session.methods.invokeMethod("echo", arguments: .uint8List(bytes))
            guard case .uint8List(let echoed) = reply else {
                Issue.record("expected a Uint8List back")
                return
            }
            #expect(echoed.count == bytes.count)
            #expect(echoed == bytes)
        }
    }

    @Test func timeoutWithdrawsTheCallAndTheSessionGoesOn() async throws {
        try await Support.withPeerHost { session in
            let error = try await #require(throws: ChannelError.self) {
                try await session.methods.invokeMethod("hang", timeout: .milliseconds(50))
            }
            #expect(error.code == .timedOut && error.channel == "peer/methods" && error.method == "hang")
            #expect(
                try await session.methods.invokeMethod("echo", arguments: .string("still here"))
                    == .string("still here"))
        }
    }
}

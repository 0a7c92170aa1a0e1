import ChannelBridgeChannels
import ChannelBridgeCodec
import ChannelBridgePlatform
import ChannelBridgeSocket
import ChannelBridgeTestSupport
import Testing

private typealias Support = ChannelsOverSocket

/// A listener that listens again as soon as a stream ends, with the owner in another process: the
/// `cancel` of the ended stream must reach the owner before the next `listen`, or it cancels the
/// new stream, which then loses its events and never ends. The end is seen on the connection's
/// reader thread while the consumer listens again from its own task, so the order holds only if
/// the channel keeps it. (`EventChannelRequestOrderTests` pins the order down deterministically; on
/// a socket the race is timing-dependent, and `channelbridge-bench events` met it about once in 20 streams.)
/// A second race hid here until the sanitizers slowed the reader thread enough: a consumer still
/// taking buffered events sees the end as soon as it is marked, before the reader thread had
/// submitted the `cancel` (`EventChannelRequestOrderTests.cancelOfAStreamEndedBehindItsConsumer…`).
@Suite(.serialized) struct EventStreamRelistenTests {
    static let rounds = 40
    static let baseCount = 300

    /// Where the test is, for the report when the hang guard fires.
    struct Progress: Sendable, CustomStringConvertible {
        var round = 0
        var received = 0
        var waitingForLog = false
        var description: String {
            waitingForLog
                ? "all \(EventStreamRelistenTests.rounds) streams ended; waiting for the peer's event log"
                : "round \(round): \(received) events received, the stream has not ended"
        }
    }

    @Test func everyStreamEndsWhenListenedToAgainAtOnce() async throws {
        let progress = LockedValue(Progress())
        do {
            try await relistenRounds(progress)
        } catch {
            Issue.record("\(error); \(progress.withLock { $0 })")
        }
    }

    private func relistenRounds(_ progress: LockedValue<Progress>) async throws {
        try await Support.withPeerHost { session in
            for round in 0..<Self.rounds {
                let count = Self.baseCount + round % 7
                let arguments = Support.map([("count", .int(count)), ("end", .bool(true))])
                var received = 0
                progress.withLock { $0 = Progress(round: round) }
                for try await event in session.events.receiveBroadcastStream(arguments: arguments) {
                    #expect(try event.get() == .int(received))
                    received += 1
                    progress.withLock { $0.received = received }
                }
                // A stream also ends, without error, when the hang guard cancels this task: stop
                // then, so that the guard's report is the failure, not a run of short streams.
                try Task.checkCancellation()
                #expect(received == count, "round \(round)")
            }
            // Each stream was listened to and then cancelled, in that order.
            progress.withLock { $0.waitingForLog = true }
            let log = try await Support.peerEventLog(session.methods, count: 2 * Self.rounds)
            let calls = log.compactMap { entry -> String? in
                guard case .list(let pair) = entry, case .string(let call)? = pair.first else { return nil }
                return call
            }
            #expect(calls == Array(repeating: ["listen", "cancel"], count: Self.rounds).flatMap { $0 })
        }
    }
}

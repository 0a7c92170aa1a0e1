import ChannelBridgeBytes
import ChannelBridgeMessenger
import ChannelBridgeTestSupport
import Dispatch
import Testing

/// A session that is ending closes once nothing is owed, and every reply owed is out first.
@Suite struct MessengerConnectionDrainTests {
    /// Records the REPLY frames written and the close, in order. The write of the REPLY to
    /// `heldID` waits (on the handler's thread, as a transport that lost its CPU there) until the
    /// test lets it go, at most two seconds; the reply counts as written only then.
    final class HoldingTransport: FrameTransport {
        enum Event: Hashable, Sendable { case replyWritten(UInt32), closed }
        let events = Collector<Event>(name: "transport events")
        let heldWriteStarted = Collector<UInt32>(name: "held writes")
        let heldID: UInt32
        private let release = DispatchSemaphore(value: 0)

        init(heldID: UInt32) { self.heldID = heldID }

        func letTheHeldWriteGo() { release.signal() }

        func write(_ bytes: [UInt8]) {
            var decoder = FrameDecoder()
            decoder.append(bytes)
            while case .reply(let id, _)? = try? decoder.next() {
                if id == heldID {
                    heldWriteStarted.append(id)
                    // This blocks a thread of the concurrency pool (the handler's), which Dispatch's
                    // global queues share: bounded, so that a pool starved meanwhile by other tests
                    // loses two seconds, not the run (an unbounded hold once stalled a signal test
                    // here for 47 s). Should it expire, the test can only pass, never fail falsely.
                    _ = release.wait(timeout: .now() + .seconds(2))
                }
                events.append(.replyWritten(id))
            }
        }
        func write(
            frameOfLength length: Int, followedBy payloads: [[UInt8]], flush: Bool,
            _ encode: (UnsafeMutableRawBufferPointer) -> Void
        ) {
            write(Self.frameBytes(length: length, followedBy: payloads, encode))
        }
        func close() { events.append(.closed) }
    }

    /// Two requests and the peer's GOODBYE; the first handler's reply write is held up while the
    /// second handler finishes. The session must not close before the first reply is written (it
    /// used to: the first request stopped counting as owed before its reply was queued, and the
    /// second, finding nothing owed, closed the session; on a socket the reply was then dropped).
    @Test func aReplyStillBeingWrittenKeepsTheEndingSessionOpen() async throws {
        try await withHangGuard { () async throws in
            let transport = HoldingTransport(heldID: 1)
            let connection = MessengerConnection(role: .host, transport: transport)
            let (first, second) = (Gate(), Gate())
            let secondDone = Collector<Void>(name: "second handler done")
            connection.installInTask(onChannel: "work") { message in
                if message == [1] {
                    await first.wait()
                    return HandlerReply(Payload([1]))
                }
                await second.wait()
                // Runs after the messenger has handled this reply (and closed, if it found nothing owed).
                return HandlerReply(Payload([2]), afterReply: { secondDone.append(()) })
            }
            var bytes: [UInt8] = []
            for frame in [
                Frame.hello(Frame.Hello(role: .client, peerName: "raw")),
                .request(id: 1, channel: "work", payload: [1]),
                .request(id: 2, channel: "work", payload: [2]),
                .goodbye(code: .normal, reason: ""),
            ] {
                bytes += try FrameEncoder.encode(frame)
            }
            connection.receive(bytes)

            first.open()
            _ = try await transport.heldWriteStarted.first(1)
            second.open()
            _ = try await secondDone.first(1)
            transport.letTheHeldWriteGo()

            let events = try await transport.events.wait(for: "both replies and the close") { $0.count >= 3 }
            #expect(events.last == .closed, "the session closed before a reply it owed was written: \(events)")
            #expect(Set(events) == [.replyWritten(1), .replyWritten(2), .closed])
        }
    }
}

@testable import ChannelBridgeMessenger
import ChannelBridgeTestSupport
import ChannelBridgeTesting
import Testing

/// A channel answered in place is remembered by the delivering thread and later requests on it
/// skip the state lock (`inPlaceRoute`). Each test first has one request answered so
/// that the route is remembered, then changes one thing a request is decided by, and checks
/// that the next request is decided as the lock would decide it.
///
/// In-place handlers run inside `receive`, on the calling thread, so when `receive` returns the
/// handler has run or never will: the counts below are read then, with nothing to wait for.
@Suite struct MessengerConnectionInPlaceRouteTests {
    /// Every frame the connection writes, decoded.
    final class FrameLog: FrameTransport {
        let frames = Collector<Frame>(name: "frames written")
        func write(_ bytes: [UInt8]) {
            var decoder = FrameDecoder()
            decoder.append(bytes)
            while let frame = try? decoder.next() { frames.append(frame) }
        }
        func write(
            frameOfLength length: Int, followedBy payloads: [[UInt8]], flush: Bool,
            _ encode: (UnsafeMutableRawBufferPointer) -> Void
        ) {
            write(Self.frameBytes(length: length, followedBy: payloads, encode))
        }
        func close() {}

        var replies: [Frame] { frames.all.filter { if case .reply = $0 { true } else { false } } }
    }

    /// An in-place handler that answers `[mark]` and counts its calls.
    final class Marker: Sendable {
        let calls = Collector<UInt8>(name: "in-place handler calls")
        func handler(_ mark: UInt8) -> MessageHandler {
            { [calls] _, reply in
                calls.append(mark)
                if reply.isEmpty { reply = [0] }
                reply[0] = mark
                return .written(count: 1)
            }
        }
    }

    static func open() throws -> (MessengerConnection, FrameLog) {
        let transport = FrameLog()
        let connection = MessengerConnection(role: .host, transport: transport)
        connection.receive(try FrameEncoder.encode(.hello(Frame.Hello(role: .client, peerName: "raw"))))
        return (connection, transport)
    }

    static func request(_ id: UInt32, on channel: String = "c") throws -> [UInt8] {
        try FrameEncoder.encode(.request(id: id, channel: channel, payload: [9]))
    }

    /// Replacing, swapping for another kind, removing the handler and refusing new requests each
    /// decide the very next request on the remembered channel.
    @Test func eachChangeDecidesTheNextRequest() async throws {
        try await withHangGuard { () async throws in
            let (connection, transport) = try Self.open()
            let marker = Marker()
            connection.installHandler(onChannel: "c", marker.handler(1))
            connection.receive(try Self.request(1))
            connection.receive(try Self.request(2))  // the remembered route
            connection.installHandler(onChannel: "c", marker.handler(2))
            connection.receive(try Self.request(3))
            #expect(marker.calls.all == [1, 1, 2])

            // A handler of another kind runs in a task of its own; its reply is waited for.
            connection.setMessageHandler(onChannel: "c") { _ in [3] }
            connection.receive(try Self.request(4))
            // This side's HELLO, then the replies.
            #expect(try await transport.frames.first(5).last == .reply(id: 4, result: .bytes([3])))
            #expect(marker.calls.all == [1, 1, 2])

            let token = connection.installHandler(onChannel: "c", marker.handler(4))
            connection.receive(try Self.request(5))
            connection.removeMessageHandler(token)
            connection.receive(try Self.request(6))
            #expect(marker.calls.all == [1, 1, 2, 4])

            connection.installHandler(onChannel: "c", marker.handler(5))
            connection.receive(try Self.request(7))
            connection.refuseNewRequests(reason: "draining")
            connection.receive(try Self.request(8))
            #expect(marker.calls.all == [1, 1, 2, 4, 5])

            #expect(
                transport.replies == [
                    .reply(id: 1, result: .bytes([1])), .reply(id: 2, result: .bytes([1])),
                    .reply(id: 3, result: .bytes([2])),
                    .reply(id: 4, result: .bytes([3])), .reply(id: 5, result: .bytes([4])),
                    .reply(id: 6, result: .null),
                    .reply(id: 7, result: .bytes([5])), .reply(id: 8, result: .failure("draining")),
                ])
        }
    }

    /// A request whose id repeats one of the peer's requests still in flight breaks the session,
    /// on the remembered channel too: it is not answered there.
    @Test func anIdStillInFlightIsAViolationOnTheRememberedRoute() async throws {
        try await withHangGuard { () async throws in
            let (connection, transport) = try Self.open()
            let marker = Marker()
            connection.installHandler(onChannel: "c", marker.handler(1))
            let started = Collector<Void>(name: "slow handler started")
            // Waits on a stream nothing yields to, until the session's end cancels it.
            let (never, keepOpen) = AsyncStream<Void>.makeStream()
            defer { keepOpen.finish() }
            connection.setMessageHandler(onChannel: "slow") { _ in
                started.append(())
                for await _ in never {}
                return nil
            }
            connection.receive(try Self.request(1))
            connection.receive(try Self.request(5, on: "slow"))
            _ = try await started.first(1)
            connection.receive(try Self.request(5))
            #expect(marker.calls.all == [1])
            // This side's HELLO, the reply, then GOODBYE.
            let frames = try await transport.frames.first(3)
            #expect(frames[1] == .reply(id: 1, result: .bytes([1])))
            guard case .goodbye(let code, let reason) = frames[2] else {
                Issue.record("expected GOODBYE after the repeated id, got \(frames[2])")
                return
            }
            #expect(code == .protocolError)
            #expect(reason == "REQUEST id 5 is already in flight")
        }
    }

    /// Ways a session stops answering requests while it may still be open or has just closed.
    enum Ending: CaseIterable, Sendable {
        /// The peer's GOODBYE while this side still waits for a reply: the session stays open
        /// for that reply, and a request that crosses the GOODBYE is dropped.
        case peerGoodbyeWithACallOutstanding
        /// This side closes at once.
        case closedHere
        /// The peer breaks the protocol (a second HELLO), which closes the session.
        case violation
    }

    /// A request after the session stopped answering is not answered on the remembered route.
    @Test(arguments: Ending.allCases) func aRequestAfterTheSessionStopsAnsweringIsNotAnswered(
        _ ending: Ending
    ) async throws {
        try await withHangGuard { () async throws in
            let (connection, transport) = try Self.open()
            let marker = Marker()
            connection.installHandler(onChannel: "c", marker.handler(1))
            connection.receive(try Self.request(1))
            switch ending {
            case .peerGoodbyeWithACallOutstanding:
                let call = Task { try await connection.send(onChannel: "peer", message: [1]) }
                // This side's HELLO, the reply to 1, then the call's REQUEST.
                guard case .request(let id, _, _) = try await transport.frames.first(3)[2] else {
                    Issue.record("expected this side's REQUEST")
                    return
                }
                connection.receive(try FrameEncoder.encode(.goodbye(code: .normal, reason: "")))
                connection.receive(try Self.request(2))
                #expect(connection.closeError == nil, "the session waits for the reply this side is owed")
                connection.receive(try FrameEncoder.encode(.reply(id: id, result: .bytes([7]))))
                #expect(try await call.value == [7])
            case .closedHere:
                connection.close(code: .normal, reason: "", waitForOwedReplies: false)
                connection.receive(try Self.request(2))
            case .violation:
                connection.receive(try FrameEncoder.encode(.hello(Frame.Hello(role: .client, peerName: "again"))))
                #expect(connection.closeError?.code == .protocolError)
                connection.receive(try Self.request(2))
            }
            #expect(marker.calls.all == [1])
            #expect(transport.replies == [.reply(id: 1, result: .bytes([1]))])
        }
    }

    /// The remembered handler does not outlive the session: a handler that holds its connection
    /// (as one capturing its channel does) would otherwise keep the connection alive for ever
    /// through it. The in-memory pair ends its deliveries as a socket's reader does, after the last.
    @Test func theRememberedHandlerIsLetGoOnceDeliveriesEnd() async throws {
        try await withHangGuard { () async throws in
            weak var weakHost: MessengerConnection?
            do {
                let (client, host) = InMemoryMessenger.makePair()
                weakHost = host
                host.installHandler(onChannel: "c") { [host] _, reply in
                    withExtendedLifetime(host) {}
                    if reply.isEmpty { reply = [0] }
                    reply[0] = 1
                    return .written(count: 1)
                }
                #expect(try await client.send(onChannel: "c", message: [9]) == [1])
                #expect(try await client.send(onChannel: "c", message: [9]) == [1])
                client.close(code: .normal, reason: "", waitForOwedReplies: false)
                #expect(host.closeError != nil)
            }
            #expect(weakHost == nil, "the connection is still held after its session ended")
        }
    }
}

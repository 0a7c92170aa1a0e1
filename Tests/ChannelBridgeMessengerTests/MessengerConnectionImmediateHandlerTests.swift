import ChannelBridgeBytes
import ChannelBridgeMessenger
import ChannelBridgeTestSupport
import Testing

private struct Refused: Error, CustomStringConvertible {
    var description: String { "refused" }
}

/// Handlers installed with `mayAnswerLater` (what `setImmediateMethodCallHandler` installs): an
/// answer given at once, in segments or in the lent buffer, is the
/// REPLY, sent while the request is being delivered; `.later` work runs in a task and its request
/// stays owed until that REPLY is queued, so an ending session waits for it.
@Suite struct MessengerConnectionImmediateHandlerTests {
    /// Records what the connection writes: REPLY frames and the close, in order.
    final class ReplyLog: FrameTransport {
        enum Event: Equatable, Sendable { case reply(UInt32, Frame.Reply), closed }
        let events = Collector<Event>(name: "replies and close")

        func write(_ bytes: [UInt8]) {
            var decoder = FrameDecoder()
            decoder.append(bytes)
            while let frame = try? decoder.next() {
                if case .reply(let id, let result) = frame { events.append(.reply(id, result)) }
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

    /// Payload 0: null now; 1: `[1]` now, in segments; 2: throws now; 3: `[3]` later, once `gate`
    /// opens; 4: throws later. `inPlace`: the same answers, `[1]` written into the buffer it is lent.
    static func install(on connection: MessengerConnection, gate: Gate, inPlace: Bool = false) {
        if inPlace {
            connection.installHandler(onChannel: "immediate", mayAnswerLater: true) { message, reply in
                switch message.bytes?.first {
                case 0: return .null
                case 1:
                    if reply.isEmpty { reply = [0] }
                    reply[0] = 1
                    return .written(count: 1)
                case 2: throw Refused()
                case 3:
                    return .later(
                        LaterWork {
                            await gate.wait()
                            return HandlerReply(Payload([3]))
                        })
                default: return .later(LaterWork { throw Refused() })
                }
            }
            return
        }
        connection.installHandler(onChannel: "immediate", mayAnswerLater: true) { message, _ in
            switch message.array?.first {
            case 0: return .null
            case 1: return .payload(Payload([1]))
            case 2: throw Refused()
            case 3:
                return .later(
                    LaterWork {
                        await gate.wait()
                        return HandlerReply(Payload([3]))
                    })
            default: return .later(LaterWork { throw Refused() })
            }
        }
    }

    static func frames(_ requests: [(id: UInt32, payload: UInt8)], goodbye: Bool = false) throws -> [UInt8] {
        var bytes = try FrameEncoder.encode(.hello(Frame.Hello(role: .client, peerName: "raw")))
        for request in requests {
            bytes += try FrameEncoder.encode(.request(id: request.id, channel: "immediate", payload: [request.payload]))
        }
        if goodbye { bytes += try FrameEncoder.encode(.goodbye(code: .normal, reason: "")) }
        return bytes
    }

    /// Answers given at once go out as the requests are read, ahead of the earlier request whose
    /// work is still waiting; a thrown error is REPLY status 2 with its description, either way.
    @Test(arguments: [false, true]) func answersAtOnceOvertakeWorkStillWaiting(inPlace: Bool) async throws {
        try await withHangGuard { () async throws in
            let transport = ReplyLog()
            let connection = MessengerConnection(role: .host, transport: transport)
            defer { connection.close() }
            let gate = Gate()
            Self.install(on: connection, gate: gate, inPlace: inPlace)
            connection.receive(try Self.frames([(1, 3), (2, 1), (3, 0), (4, 2), (5, 4)]))
            let atOnce = try await transport.events.first(4)
            #expect(
                atOnce == [
                    .reply(2, .bytes([1])), .reply(3, .null), .reply(4, .failure("refused")),
                    .reply(5, .failure("refused")),
                ])
            gate.open()
            let all = try await transport.events.first(5)
            #expect(all.last == .reply(1, .bytes([3])))
        }
    }

    /// After the peer's GOODBYE the session closes once nothing is owed: at once when every
    /// answer was immediate (an entry left behind would keep it open for good), and only after
    /// the REPLY of work that was still waiting.
    @Test(arguments: [false, true]) func anEndingSessionClosesOnceImmediateAndLaterAnswersAreOut(
        inPlace: Bool
    ) async throws {
        try await withHangGuard { () async throws in
            let onlyNow = ReplyLog()
            let first = MessengerConnection(role: .host, transport: onlyNow)
            Self.install(on: first, gate: Gate(), inPlace: inPlace)
            first.receive(try Self.frames([(1, 1), (2, 0)], goodbye: true))
            #expect(try await onlyNow.events.first(3) == [.reply(1, .bytes([1])), .reply(2, .null), .closed])

            let withLater = ReplyLog()
            let second = MessengerConnection(role: .host, transport: withLater)
            let gate = Gate()
            Self.install(on: second, gate: gate, inPlace: inPlace)
            second.receive(try Self.frames([(1, 3), (2, 1)], goodbye: true))
            #expect(try await withLater.events.first(1) == [.reply(2, .bytes([1]))])
            gate.open()
            #expect(try await withLater.events.first(3) == [.reply(2, .bytes([1])), .reply(1, .bytes([3])), .closed])
        }
    }

    /// An in-place handler that may answer later, on the route that skips the state lock: an
    /// answer at hand is written before `receive` returns; work left for later makes the request
    /// owed (a session ending waits for it), and the next request, decided in the lock while that
    /// work runs, is still answered at once.
    @Test func laterWorkOnTheInPlaceRouteIsOwedUntilItAnswers() async throws {
        try await withHangGuard { () async throws in
            let transport = ReplyLog()
            let connection = MessengerConnection(role: .host, transport: transport)
            defer { connection.close() }
            let gate = Gate()
            Self.install(on: connection, gate: gate, inPlace: true)
            connection.receive(try Self.frames([(1, 1), (2, 1)]))  // the second on the route
            #expect(transport.events.all == [.reply(1, .bytes([1])), .reply(2, .bytes([1]))])
            connection.receive(try FrameEncoder.encode(.request(id: 3, channel: "immediate", payload: [3])))
            #expect(connection.owedReplyCount == 1)
            connection.receive(try FrameEncoder.encode(.request(id: 4, channel: "immediate", payload: [1])))
            #expect(transport.events.all.last == .reply(4, .bytes([1])))
            #expect(connection.owedReplyCount == 1)
            gate.open()
            #expect(try await transport.events.first(4).last == .reply(3, .bytes([3])))
            connection.receive(try FrameEncoder.encode(.request(id: 5, channel: "immediate", payload: [1])))
            #expect(transport.events.all.last == .reply(5, .bytes([1])))
        }
    }
}

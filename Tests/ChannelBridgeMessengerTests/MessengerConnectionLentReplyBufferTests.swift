import ChannelBridgeBytes
@testable import ChannelBridgeMessenger
import ChannelBridgeTestSupport
import Testing

private typealias FrameLog = MessengerConnectionSplitPayloadTests.FrameLog

/// A call that lends its encode buffer (`startRequest` with a lent `Payload`) gets a status-0 reply
/// of up to `lentReplyBufferLimit` bytes back in that buffer, read there without an array of its
/// own; every other reply arrives as it does without a lent buffer.
@Suite struct MessengerConnectionLentReplyBufferTests {
    static func bytes(_ count: Int, _ seed: UInt8) -> [UInt8] {
        (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ Int(seed)) }
    }

    static func address(_ bytes: [UInt8]) -> UInt {
        bytes.withUnsafeBufferPointer { UInt(bitPattern: $0.baseAddress) }
    }

    /// A 64-byte buffer whose first `requestCount` bytes are a request and the rest room.
    static func lendable(_ requestCount: Int) -> [UInt8] {
        var buffer = [UInt8](repeating: 0xEE, count: 64)
        buffer.replaceSubrange(0..<requestCount, with: bytes(requestCount, 1))
        return buffer
    }

    /// Makes one call on a fresh connection, lending a buffer from `lendable` (or lending none),
    /// answers it with `reply` once `startRequest` has returned (so that only the connection
    /// holds the buffer), and returns what the caller got and the lent buffer's address.
    static func call(
        lending: Bool, requestCount: Int = 5, reply: Frame.Reply
    ) async throws
        -> (result: Result<Payload?, any Error>, lentAddress: UInt)
    {
        let transport = FrameLog()
        let connection = MessengerConnection(role: .client, transport: transport)
        connection.receive(try FrameEncoder.encode(.hello(Frame.Hello(role: .host, peerName: "raw"))))
        let prepared = try connection.prepareRequest(onChannel: "c", payloadCount: requestCount)
        let started = Collector<UInt>(name: "startRequest returned, with the lent buffer's address")
        async let answer = withUnsafeThrowingContinuation {
            (continuation: UnsafeContinuation<Payload?, any Error>) in
            // Made here and handed over, so that nothing else keeps a reference to it.
            let lent = lendable(requestCount)
            let lentAddress = address(lent)
            connection.startRequest(
                prepared, onChannel: "c",
                payload: lending ? Payload(lending: consume lent, count: requestCount) : Payload(consume lent),
                continuation: continuation)
            started.append(lentAddress)
        }
        let lentAddress = try await started.first(1)[0]
        #expect(try await transport.requestIDs.first(1) == [prepared.id])
        connection.receive(try FrameEncoder.encode(.reply(id: prepared.id, result: reply)))
        do {
            return (.success(try await answer), lentAddress)
        } catch {
            return (.failure(error), lentAddress)
        }
    }

    @Test func aSmallReplyComesBackInTheLentBufferItself() async throws {
        try await withHangGuard { () async throws in
            for count in [0, 1, 10, 64] {
                let payload = Self.bytes(count, 3)
                let (result, lentAddress) = try await Self.call(lending: true, reply: .bytes(payload))
                guard let received = try? result.get(), received.isLent, received.isContiguous else {
                    Issue.record("a \(count)-byte reply did not come back in the lent buffer: \(result)")
                    continue
                }
                let (buffer, got) = (received.storage, received.readableRange.count)
                #expect(received.readableRange.lowerBound == 0 && got == count && Array(buffer[..<got]) == payload)
                #expect(Self.address(buffer) == lentAddress, "a \(count)-byte reply was read into a copy of the buffer")
            }
        }
    }

    /// Larger than the lent buffer but within the limit: a new buffer, which the caller keeps.
    @Test func aReplyLargerThanTheLentBufferComesBackInALargerOne() async throws {
        try await withHangGuard { () async throws in
            for count in [65, 5_000, MessengerConnection.lentReplyBufferLimit] {
                let payload = Self.bytes(count, 4)
                let (result, lentAddress) = try await Self.call(lending: true, reply: .bytes(payload))
                guard let received = try? result.get(), received.isLent, received.isContiguous else {
                    Issue.record("a \(count)-byte reply did not come back in a buffer: \(result)")
                    continue
                }
                let (buffer, got) = (received.storage, received.readableRange.count)
                #expect(got == count && buffer.count >= count && Array(buffer[..<got]) == payload)
                #expect(Self.address(buffer) != lentAddress)
            }
        }
    }

    /// Past the limit, without a lent buffer, and for null and failed replies: as before.
    @Test func otherRepliesArriveAsWithoutALentBuffer() async throws {
        try await withHangGuard { () async throws in
            let large = Self.bytes(MessengerConnection.lentReplyBufferLimit + 1, 5)
            let (overLimit, _) = try await Self.call(lending: true, reply: .bytes(large))
            guard let received = try? overLimit.get(), !received.isLent else {
                Issue.record("a reply over the limit: \(overLimit)")
                return
            }
            #expect(received.array == large)

            let (notLent, _) = try await Self.call(lending: false, reply: .bytes([1, 2, 3]))
            guard let small = try? notLent.get(), !small.isLent else {
                Issue.record("a reply to a call that lent nothing: \(notLent)")
                return
            }
            #expect(small.array == [1, 2, 3])

            let (null, _) = try await Self.call(lending: true, reply: .null)
            #expect(try null.get() == nil)

            let (failed, _) = try await Self.call(lending: true, reply: .failure("HANDLER_FAILED: no"))
            let error = try #require(throws: MessengerError.self) { try failed.get() }
            #expect(error.code == .handlerFailed && error.message == "HANDLER_FAILED: no" && error.channel == "c")
        }
    }

    /// The decoder leaves a status-0 REPLY's payload in its buffer; other statuses are parsed,
    /// and either way `frame` is the frame `next()` gives.
    @Test func theDecoderLeavesAStatusZeroReplyInItsBuffer() throws {
        let frames: [Frame] = [
            .reply(id: 9, result: .bytes([1, 2, 3])),
            .reply(id: 10, result: .bytes([])),
            .reply(id: 11, result: .null),
            .reply(id: 12, result: .failure("x")),
        ]
        var decoder = FrameDecoder()
        for frame in frames { decoder.append(try FrameEncoder.encode(frame)) }
        for frame in frames {
            let decoded = try #require(try decoder.nextInPlace())
            switch (frame, decoded) {
            case (.reply(let id, .bytes(let payload)), .reply(let gotID, let buffer, let range)):
                #expect(gotID == id && Array(buffer[range]) == payload)
            case (.reply(_, .bytes), _):
                Issue.record("\(frame) was not left in the buffer")
            default:
                guard case .frame = decoded else {
                    Issue.record("\(frame) was decoded as \(decoded)")
                    continue
                }
            }
            #expect(decoded.frame == frame && decoded.kind == .reply)
        }
        #expect(try decoder.nextInPlace() == nil)
    }
}

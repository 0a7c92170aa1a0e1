import ChannelBridgeBytes
import ChannelBridgeMessenger
import ChannelBridgeTestSupport
import Synchronization
import Testing

/// Large payloads read into two arrays (`PayloadSplitter`): the decoder splits
/// a large REQUEST or REPLY where the splitter says, once it has the payload's first bytes; the
/// connection hands the two parts to an in-place handler and to `startRequest`'s caller, and joins
/// them for everyone else.
@Suite struct MessengerConnectionSplitPayloadTests {
    static let large = (0..<(FrameDecoder.directPayloadThreshold + 5_000)).map {
        UInt8(truncatingIfNeeded: $0 &* 11 &+ 5)
    }

    /// Splits at `at`, and records the prefix lengths it was shown.
    final class FixedSplitter: Sendable {
        let at: Int
        let shown = Mutex<[Int]>([])
        init(at: Int) { self.at = at }
        var splitter: PayloadSplitter {
            { [self] prefix, length in
                shown.withLock { $0.append(prefix.count) }
                #expect(length == MessengerConnectionSplitPayloadTests.large.count)
                return at
            }
        }
    }

    static func chunks(_ bytes: [UInt8], by size: Int) -> [ArraySlice<UInt8>] {
        stride(from: 0, to: bytes.count, by: size).map { bytes[$0..<min($0 + size, bytes.count)] }
    }

    /// Feeds `bytes` in chunks of `size`, and returns the frames as `nextInPlace` gives them.
    static func decode(
        _ bytes: [UInt8], by size: Int, splitting: PayloadSplitting
    ) throws -> [FrameDecoder.DecodedFrame] {
        var decoder = FrameDecoder()
        decoder.splitting = splitting
        var decoded: [FrameDecoder.DecodedFrame] = []
        var fed = 0
        for chunk in chunks(bytes, by: size) {
            decoder.append(chunk)
            fed += chunk.count
            while let frame = try decoder.nextInPlace() { decoded.append(frame) }
            // What is buffered is what was fed and not yet returned, split or not.
            #expect(decoder.bufferedByteCount <= fed)
        }
        #expect(decoder.bufferedByteCount == 0)
        return decoded
    }

    @Test(arguments: [Int.max, 100_000, 1_000, 1])
    func aLargeRequestAndReplyAreSplitWhereTheSplitterSays(chunkSize: Int) throws {
        let splitting = PayloadSplitting()
        let requests = FixedSplitter(at: 7), replies = FixedSplitter(at: 300)
        splitting.setRequestSplitter(requests.splitter, onChannel: "big")
        splitting.setReplySplitter(replies.splitter)
        var bytes = try FrameEncoder.encode(.request(id: 3, channel: "big", payload: Self.large))
        bytes += try FrameEncoder.encode(.reply(id: 4, result: .bytes(Self.large)))
        let decoded = try Self.decode(bytes, by: min(chunkSize, bytes.count), splitting: splitting)
        guard decoded.count == 2, case .split(.request(3, "big", let head?), let tail) = decoded[0],
            case .split(.reply(4, .bytes(let replyHead)), let replyTail) = decoded[1]
        else {
            Issue.record("not split: \(decoded.map(\.kind))")
            return
        }
        #expect(head == Array(Self.large[..<7]) && tail == Array(Self.large[7...]))
        #expect(replyHead == Array(Self.large[..<300]) && replyTail == Array(Self.large[300...]))
        // Each splitter saw the payload's first 512 bytes, however the bytes came.
        #expect(requests.shown.withLock { $0 } == [512] && replies.shown.withLock { $0 } == [512])
        // The frame they make is the frame sent.
        #expect(decoded[0].frame == .request(id: 3, channel: "big", payload: Self.large))
        #expect(decoded[1].frame == .reply(id: 4, result: .bytes(Self.large)))
    }

    @Test func otherFramesAndOtherAnswersKeepThePayloadWhole() throws {
        let splitting = PayloadSplitting()
        splitting.setRequestSplitter(FixedSplitter(at: 7).splitter, onChannel: "big")
        let frames: [Frame] = [
            .request(id: 1, channel: "other", payload: Self.large),  // no splitter on its channel
            .reply(id: 2, result: .bytes(Self.large)),  // no reply splitter
            .message(channel: "big", payload: Self.large),  // MESSAGEs are never split
        ]
        var bytes: [UInt8] = []
        for frame in frames { bytes += try FrameEncoder.encode(frame) }
        let decoded = try Self.decode(bytes, by: 70_000, splitting: splitting)
        #expect(decoded.map(\.frame) == frames)
        #expect(decoded.allSatisfy { if case .frame = $0 { true } else { false } })

        // A failure REPLY is not split, and neither is a payload the splitter would cut past the
        // prefix it was shown, or at either end.
        for at in [0, 513, Self.large.count, -1] {
            let splitting = PayloadSplitting()
            splitting.setReplySplitter(FixedSplitter(at: at).splitter)
            splitting.setRequestSplitter(FixedSplitter(at: at).splitter, onChannel: "big")
            var bytes = try FrameEncoder.encode(.reply(id: 2, result: .bytes(Self.large)))
            bytes += try FrameEncoder.encode(.request(id: 5, channel: "big", payload: Self.large))
            let decoded = try Self.decode(bytes, by: 70_000, splitting: splitting)
            #expect(decoded.allSatisfy { if case .frame = $0 { true } else { false } }, "split at \(at)")
        }
    }

    /// Records the REPLY frames, and the ids of the REQUESTs (each registered before it is
    /// written), that the connection writes.
    final class FrameLog: FrameTransport {
        let replies = Collector<Frame>(name: "replies")
        let requestIDs = Collector<UInt32>(name: "requests written")
        func write(_ bytes: [UInt8]) {
            var decoder = FrameDecoder()
            decoder.append(bytes)
            while let frame = try? decoder.next() {
                switch frame {
                case .reply: replies.append(frame)
                case .request(let id, _, _): requestIDs.append(id)
                default: break
                }
            }
        }
        func write(
            frameOfLength length: Int, followedBy payloads: [[UInt8]], flush: Bool,
            _ encode: (UnsafeMutableRawBufferPointer) -> Void
        ) {
            write(Self.frameBytes(length: length, followedBy: payloads, encode))
        }
        func close() {}
    }

    /// An in-place handler installed with a splitter gets the last part as an array; installed
    /// without one (or after any other handler), it gets the payload in one piece.
    @Test func anInPlaceHandlerGetsTheLastPartOnlyWhenItAskedForIt() async throws {
        try await withHangGuard { () async throws in
            let transport = FrameLog()
            let connection = MessengerConnection(role: .host, transport: transport)
            let seen = Collector<(head: [UInt8], tail: [UInt8]?)>(name: "in-place handler calls")
            let handler: MessageHandler = { message, reply in
                seen.append((Array(message.bytes ?? UnsafeRawBufferPointer(start: nil, count: 0)), message.tail))
                reply = [UInt8((message.tail?.count ?? 0) & 0xFF)]
                return .written(count: 1)
            }
            connection.receive(try FrameEncoder.encode(.hello(Frame.Hello(role: .client, peerName: "raw"))))
            let request = { (id: UInt32) in
                try FrameEncoder.encode(.request(id: id, channel: "big", payload: Self.large))
            }

            connection.installHandler(onChannel: "big", splitter: FixedSplitter(at: 9).splitter, handler)
            connection.receive(try request(1))
            connection.installHandler(onChannel: "big", handler)
            connection.receive(try request(2))
            connection.installHandler(onChannel: "big", splitter: FixedSplitter(at: 9).splitter, handler)
            connection.setMessageHandler(onChannel: "big") { _ in [7] }
            connection.installHandler(onChannel: "big", handler)
            connection.receive(try request(3))

            let calls = try await seen.first(3)
            #expect(calls[0].head == Array(Self.large[..<9]) && calls[0].tail == Array(Self.large[9...]))
            #expect(calls[1].head == Self.large && calls[1].tail == nil)
            #expect(calls[2].head == Self.large && calls[2].tail == nil)
            let tailCount = UInt8((Self.large.count - 9) & 0xFF)
            #expect(
                try await transport.replies.first(3) == [
                    .reply(id: 1, result: .bytes([tailCount])),
                    .reply(id: 2, result: .bytes([0])),
                    .reply(id: 3, result: .bytes([0])),
                ])
        }
    }

    /// A handler that cannot take two parts gets them joined: a plain handler installed where an
    /// in-place one with a splitter was, while the request is being read.
    @Test func aPlainHandlerGetsASplitRequestJoined() async throws {
        try await withHangGuard { () async throws in
            let transport = FrameLog()
            let connection = MessengerConnection(role: .host, transport: transport)
            connection.receive(try FrameEncoder.encode(.hello(Frame.Hello(role: .client, peerName: "raw"))))
            connection.installHandler(onChannel: "big", splitter: FixedSplitter(at: 9).splitter) { _, _ in .null }
            let request = try FrameEncoder.encode(.request(id: 1, channel: "big", payload: Self.large))
            // The first part of the frame starts the split; the handler changes before the rest.
            connection.receive(Array(request[..<1_000]))
            connection.setMessageHandler(onChannel: "big") { message in
                message.map { [UInt8($0 == Self.large ? 1 : 0)] }
            }
            connection.receive(Array(request[1_000...]))
            #expect(try await transport.replies.first(1) == [.reply(id: 1, result: .bytes([1]))])
        }
    }

    /// After `splitReplies`, `startRequest`'s caller gets a large reply in two parts; `send` gets
    /// it in one piece.
    /// A handler that keeps its request for later work (`HandlerMessage.array`, as every handler
    /// that answers in a task does) gets the array a large request was read into, not a copy: two
    /// asks give the same storage. A small request still in the receive buffer is copied out.
    @Test func aHandlerKeepsALargeRequestWithoutACopy() async throws {
        try await withHangGuard { () async throws in
            let transport = FrameLog()
            let connection = MessengerConnection(role: .host, transport: transport)
            connection.receive(try FrameEncoder.encode(.hello(Frame.Hello(role: .client, peerName: "raw"))))
            connection.installHandler(onChannel: "keep", mayAnswerLater: true) { message, _ in
                let kept = message.array
                let again = message.array
                let same = kept?.withUnsafeBufferPointer { first in
                    again?.withUnsafeBufferPointer { $0.baseAddress == first.baseAddress }
                }
                let count = kept?.count ?? 0
                return .later(LaterWork { HandlerReply(Payload([same == true ? 1 : 0, UInt8(count & 0xFF)])) })
            }
            // Read in two parts, the large payload is read into an array of its own.
            let large = try FrameEncoder.encode(.request(id: 1, channel: "keep", payload: Self.large))
            connection.receive(Array(large[..<1_000]))
            connection.receive(Array(large[1_000...]))
            connection.receive(try FrameEncoder.encode(.request(id: 2, channel: "keep", payload: [1, 2, 3])))
            #expect(
                try await transport.replies.first(2) == [
                    .reply(id: 1, result: .bytes([1, UInt8(Self.large.count & 0xFF)])),
                    .reply(id: 2, result: .bytes([0, 3])),
                ])
        }
    }

    @Test func aSplitReplyReachesStartRequestInTwoPartsAndSendJoined() async throws {
        try await withHangGuard { () async throws in
            let transport = FrameLog()
            let connection = MessengerConnection(role: .client, transport: transport)
            connection.receive(try FrameEncoder.encode(.hello(Frame.Hello(role: .host, peerName: "raw"))))
            connection.splitReplies(with: FixedSplitter(at: 300).splitter)

            let prepared = try connection.prepareRequest(onChannel: "big", payloadCount: 1)
            async let parts = withUnsafeThrowingContinuation {
                (continuation: UnsafeContinuation<Payload?, any Error>) in
                connection.startRequest(
                    prepared, onChannel: "big", payload: Payload([1]), continuation: continuation)
            }
            async let whole = connection.send(onChannel: "big", message: [2])
            // Both requests are registered before either reply is read.
            let ids = try await transport.requestIDs.first(2)
            #expect(Set(ids).count == 2 && ids.contains(prepared.id))
            for id in ids { connection.receive(try FrameEncoder.encode(.reply(id: id, result: .bytes(Self.large)))) }
            guard let received = try await parts, received.segments.count == 1 else {
                Issue.record("the reply to startRequest was not split")
                return
            }
            let (head, tail) = (received.head, received.segments[0])
            #expect(head == Array(Self.large[..<300]) && tail == Array(Self.large[300...]))
            #expect(try await whole == Self.large)
        }
    }
}

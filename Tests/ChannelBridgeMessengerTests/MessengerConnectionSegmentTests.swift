import ChannelBridgeBytes
import ChannelBridgeMessenger
import ChannelBridgeTestSupport
import ChannelBridgeTesting
import Testing

/// Requests and replies given as segments: the peer sees one message, and large segments reach
/// the transport as the caller's own arrays.
@Suite struct MessengerConnectionSegmentTests {
    /// Records what the connection hands its transport; never delivers anything.
    final class RecordingTransport: FrameTransport {
        enum Write: Sendable { case whole([UInt8]), split(head: [UInt8], payloads: [[UInt8]]) }
        let writes = Collector<Write>(name: "transport writes")
        func write(
            frameOfLength length: Int, followedBy payloads: [[UInt8]], flush: Bool,
            _ encode: (UnsafeMutableRawBufferPointer) -> Void
        ) {
            let head = Self.frameBytes(length: length, followedBy: [], encode)
            writes.append(payloads.isEmpty ? .whole(head) : .split(head: head, payloads: payloads))
        }
        func close() {}
    }

    static func bytes(_ count: Int, seed: UInt8) -> [UInt8] {
        (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ Int(seed)) }
    }

    @Test func segmentsArriveAsOneMessageBothWays() async throws {
        try await withHangGuard { () async throws in
            let (client, host) = InMemoryMessenger.makePair()
            defer { client.close() }
            let large = Self.bytes(100_000, seed: 3)
            host.installInTask(onChannel: "split") { message in
                guard let message else { return HandlerReply(nil) }
                return HandlerReply(Payload([0xAA], segments: [message, [0xBB, 0xCC]]))
            }
            let cases = [
                Payload([1, 2], segments: [[3]]), Payload([9], segments: [large, [4, 5]]),
                Payload(large), Payload([], segments: [[6]]),
            ]
            for segments in cases {
                let reply = try await client.send(onChannel: "split", payload: segments)
                #expect(reply == [0xAA] + segments.array + [0xBB, 0xCC])
            }
            // A segmented handler that answers nil is a null reply, as a plain one.
            host.installInTask(onChannel: "nothing") { _ in HandlerReply(nil) }
            #expect(try await client.send(onChannel: "nothing", payload: Payload([1])) == nil)
        }
    }

    @Test func largeSegmentsReachTheTransportUncopied() async throws {
        let transport = RecordingTransport()
        let connection = MessengerConnection(role: .client, transport: transport)
        let large = Self.bytes(70_000, seed: 5)
        let call = Task {
            try await connection.send(onChannel: "bulk", payload: Payload([1, 2, 3], segments: [large]))
        }
        // The HELLO, then the request.
        let write = try await transport.writes.first(2)[1]
        guard case .split(let head, let payloads) = write else {
            Issue.record("the request was copied into one array: \(write)")
            return
        }
        #expect(payloads.count == 2)
        #expect(payloads.last.map { Self.sameStorage($0, large) } == true)
        var decoder = FrameDecoder()
        decoder.append(head + Array(payloads.joined()))
        #expect(try decoder.next() == .request(id: 1, channel: "bulk", payload: [1, 2, 3] + large))
        #expect(decoder.bufferedByteCount == 0)
        call.cancel()
        _ = await call.result
    }

    @Test func smallSegmentsAreJoinedIntoOneFrame() async throws {
        let transport = RecordingTransport()
        let connection = MessengerConnection(role: .client, transport: transport)
        let call = Task {
            try await connection.send(onChannel: "small", payload: Payload([1], segments: [[2, 3]]))
        }
        // The HELLO, then the request.
        let write = try await transport.writes.first(2)[1]
        guard case .whole(let bytes) = write else {
            Issue.record("a small request was split: \(write)")
            return
        }
        #expect(try bytes == FrameEncoder.encode(.request(id: 1, channel: "small", payload: [1, 2, 3])))
        call.cancel()
        _ = await call.result
    }

    static func sameStorage(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        a.withUnsafeBufferPointer { x in b.withUnsafeBufferPointer { y in x.baseAddress == y.baseAddress } }
    }
}

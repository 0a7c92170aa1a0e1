import ChannelBridgeMessenger
import ChannelBridgeTestSupport
import Testing

@Suite struct FrameDecoderTests {
    /// A stream holding every kind, an empty-payload frame, and two frames large enough for the
    /// in-place payload path (one of them a REPLY).
    static func stream(
        largeCount: Int = FrameDecoder.directPayloadThreshold + 1000
    ) -> (bytes: [UInt8], frames: [Frame]) {
        var generator = SeededGenerator(seed: 7)
        let large = (0..<largeCount).map { _ in UInt8.random(in: 0...255, using: &generator) }
        let frames: [Frame] = [
            .hello(.init(role: .host, peerName: "host ✓")),
            .request(id: 1, channel: "a/b", payload: [1, 2, 3]),
            .request(id: 2, channel: "a/b", payload: nil),
            .request(id: 3, channel: "big", payload: large),
            .message(channel: "events", payload: []),
            .reply(id: 9, result: .bytes(Array(large.reversed()))),
            .reply(id: 10, result: .null),
            .reply(id: 11, result: .failure("boom")),
            .message(channel: "events", payload: nil),
            .cancel(id: 4),
            .ping(token: .max),
            .pong(token: 0),
            .goodbye(code: .shuttingDown, reason: "bye"),
        ]
        var bytes: [UInt8] = []
        for frame in frames { FrameEncoder.encodeValidated(frame, into: &bytes) }
        return (bytes, frames)
    }

    /// Feeds `chunks` in order, alternately through `append` and through the read-in-place API,
    /// collecting frames as they complete.
    static func decode(
        _ chunks: [ArraySlice<UInt8>], maxFrameLength: Int = FrameDecoder.defaultMaxFrameLength
    )
        throws -> [Frame]
    {
        var decoder = FrameDecoder(maxFrameLength: maxFrameLength)
        var frames: [Frame] = []
        for (index, chunk) in chunks.enumerated() {
            try feed(chunk, into: &decoder, inPlace: index % 2 == 1) { decoder, _ in
                while let frame = try decoder.next() { frames.append(frame) }
            }
            while let frame = try decoder.next() { frames.append(frame) }
        }
        #expect(decoder.bufferedByteCount == 0)
        return frames
    }

    /// Gives `decoder` the bytes of `chunk`: with one `append`, or `inPlace` through the
    /// read-in-place API, calling `afterRead` with the decoder and the count after each region it
    /// reads (a region may be smaller than the chunk: the end of a large payload).
    static func feed(
        _ chunk: ArraySlice<UInt8>, into decoder: inout FrameDecoder, inPlace: Bool,
        afterRead: (inout FrameDecoder, Int) throws -> Void
    ) rethrows {
        guard inPlace else {
            decoder.append(chunk)
            return
        }
        var rest = chunk[...]
        while !rest.isEmpty {
            let count = decoder.withUnsafeMutableInputBuffer(minimumCapacity: 16) { region in
                let count = min(region.count, rest.count)
                rest.prefix(count).withUnsafeBytes { region.copyMemory(from: $0) }
                rest = rest.dropFirst(count)
                return count
            }
            try afterRead(&decoder, count)
        }
    }

    static func randomSplits(_ bytes: [UInt8], seed: UInt64, maxChunk: Int) -> [ArraySlice<UInt8>] {
        var generator = SeededGenerator(seed: seed)
        var chunks: [ArraySlice<UInt8>] = []
        var start = 0
        while start < bytes.count {
            let size = Int.random(in: 1...maxChunk, using: &generator)
            let end = min(bytes.count, start + size)
            chunks.append(bytes[start..<end])
            start = end
        }
        return chunks
    }

    @Test func allAtOnce() throws {
        let (bytes, frames) = Self.stream()
        #expect(try Self.decode([bytes[...]]) == frames)
    }

    @Test func byteByByte() throws {
        let (bytes, frames) = Self.stream()
        #expect(try Self.decode(bytes.indices.map { bytes[$0...$0] }) == frames)
    }

    @Test(arguments: [(1, 7), (2, 64), (3, 4096), (4, 100_000)])
    func randomSplits(seed: UInt64, maxChunk: Int) throws {
        let (bytes, frames) = Self.stream()
        #expect(try Self.decode(Self.randomSplits(bytes, seed: seed, maxChunk: maxChunk)) == frames)
    }

    /// `nextInPlace()` gives the frames `next()` gives; a REQUEST held whole in the buffer comes
    /// with its payload's range instead of a copy, and that range holds exactly the payload.
    @Test(arguments: [1, 64, 100_000])
    func inPlaceDecodingGivesTheSameFramesAndPointsAtThePayload(maxChunk: Int) throws {
        let (bytes, frames) = Self.stream()
        var decoder = FrameDecoder()
        var decoded: [Frame] = []
        var inPlaceRequests = 0
        for chunk in Self.randomSplits(bytes, seed: 11, maxChunk: maxChunk) {
            decoder.append(chunk)
            while let next = try decoder.nextInPlace() {
                if case .request(let id, _, let buffer, let payload) = next {
                    inPlaceRequests += 1
                    guard case .request(id, _, let expected) = frames[decoded.count] else {
                        Issue.record("request \(id) decoded where \(frames[decoded.count]) was sent")
                        return
                    }
                    #expect(payload.map { Array(buffer[$0]) } == expected)
                }
                decoded.append(next.frame)
            }
        }
        #expect(decoded == frames)
        // Requests 1 and 2 were whole in the buffer; request 3 is large, and was read into its own array.
        #expect(inPlaceRequests == 2)
    }

    /// `isDrained` says exactly that every byte fed so far belongs to a frame already returned:
    /// after the frames of each chunk are taken, it is true at a frame boundary and false inside
    /// a frame (a large payload's included), whether the bytes came by `append` or were read in place.
    @Test(arguments: [(5, 1), (6, 9), (7, 300), (8, 100_000)])
    func drainedExactlyAtFrameBoundaries(seed: UInt64, maxChunk: Int) throws {
        let (bytes, frames) = Self.stream()
        var boundaries: Set<Int> = [0]
        var end = 0
        for frame in frames {
            end += try FrameEncoder.encode(frame).count
            boundaries.insert(end)
        }
        var decoder = FrameDecoder()
        #expect(decoder.isDrained)
        var fed = 0
        var decoded: [Frame] = []
        for (index, chunk) in Self.randomSplits(bytes, seed: seed, maxChunk: maxChunk).enumerated() {
            let inPlace = index % 2 == 1
            try Self.feed(chunk, into: &decoder, inPlace: inPlace) { decoder, count in
                fed += count
                while let frame = try decoder.nextInPlace() { decoded.append(frame.frame) }
                #expect(decoder.isDrained == boundaries.contains(fed), "after \(fed) bytes")
            }
            if !inPlace { fed += chunk.count }
            while let frame = try decoder.nextInPlace() { decoded.append(frame.frame) }
            #expect(decoder.isDrained == boundaries.contains(fed), "after \(fed) bytes")
        }
        #expect(decoded == frames)
    }

    @Test func sixteenMebibytePayloadInRandomSplits() throws {
        let payload = [UInt8](repeating: 0x5A, count: 16 << 20)
        var bytes: [UInt8] = []
        try FrameEncoder.encode(.request(id: 1, channel: "bytes", payload: payload), into: &bytes)
        try FrameEncoder.encode(.ping(token: 1), into: &bytes)
        let frames = try Self.decode(Self.randomSplits(bytes, seed: 5, maxChunk: 1 << 20))
        #expect(frames == [.request(id: 1, channel: "bytes", payload: payload), .ping(token: 1)])
    }

    @Test func oversizedLengthIsRefusedBeforeAnyBodyByte() {
        var decoder = FrameDecoder(maxFrameLength: 1024)
        decoder.append([0x01, 0x04, 0x00] as [UInt8])
        #expect(throws: Never.self) { _ = try decoder.next() }
        decoder.append([0x00] as [UInt8])  // length 1025: complete length field, no kind, no body
        #expect { _ = try decoder.next() } throws: { ($0 as? ProtocolViolation)?.code == .frameTooLarge }
    }

    @Test func lengthAtTheMaximumIsAccepted() throws {
        var decoder = FrameDecoder(maxFrameLength: 13)
        try decoder.append(FrameEncoder.encode(.message(channel: "c", payload: Array(repeating: 1, count: 8))))
        #expect(try decoder.next() == .message(channel: "c", payload: Array(repeating: 1, count: 8)))
    }

    @Test func errorsAreStickyAndFramesBeforeThemAreDelivered() throws {
        var bytes = try FrameEncoder.encode(.cancel(id: 1))
        bytes += [0x01, 0x00, 0x00, 0x00, 0x42]  // unknown kind 0x42
        bytes += try FrameEncoder.encode(.cancel(id: 2))
        var decoder = FrameDecoder()
        decoder.append(bytes)
        #expect(try decoder.next() == .cancel(id: 1))
        for _ in 0..<2 {
            #expect { _ = try decoder.next() } throws: { ($0 as? ProtocolViolation)?.code == .unknownKind }
        }
    }

    @Test func sameErrorWhateverTheSplit() throws {
        // A large REQUEST whose channel name is bad UTF-8 is caught on the in-place path too.
        var bytes = try FrameEncoder.encode(.ping(token: 3))
        var body: [UInt8] = [0x02, 0x05, 0, 0, 0, 0x02, 0x00, 0xC3, 0x28, 0x00]
        body += Array(repeating: 0, count: FrameDecoder.directPayloadThreshold)
        withUnsafeBytes(of: UInt32(body.count).littleEndian) { bytes += $0 }
        bytes += body
        for split in [bytes.count, 1, 3, 1000] {
            let chunks = stride(from: 0, to: bytes.count, by: split).map { bytes[$0..<min($0 + split, bytes.count)] }
            var seen: [Frame] = []
            #expect {
                var decoder = FrameDecoder()
                for chunk in chunks {
                    decoder.append(chunk)
                    while let frame = try decoder.next() { seen.append(frame) }
                }
            } throws: { ($0 as? ProtocolViolation)?.code == .invalidUTF8 }
            #expect(seen == [.ping(token: 3)])
        }
    }
}

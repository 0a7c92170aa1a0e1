import ChannelBridgeMessenger

/// Entry point: `FrameDecoder` (`append` and `next`, the read-into-buffer path
/// `withUnsafeMutableInputBuffer`, and `nextInPlace`), fed the same stream whole and split at
/// fuzzer-chosen points.
///
/// Input: a plan byte, then (when the plan says so) where to grow a frame past the large-frame
/// threshold, then the chunks' lengths and how each is fed, then the stream.
///
/// - plan bits 0–3: chunk count; bit 4: grow a frame; bits 5–6: the maximum frame length
///   (default, 1 MiB, just above the large-frame threshold, 64 bytes); bit 7: take frames out
///   after every chunk (else only at the end).
/// - grow: u16 where a run of zero bytes goes into the stream, u16 how many more than
///   `directPayloadThreshold` it has, u16 where the u32 length field it adds to is. A seed puts
///   both inside one REQUEST, MESSAGE or REPLY, so mutations start from a valid large frame.
/// - per chunk: u16 length, and a byte: bit 0 feeds it through the read-into-buffer path
///   (else `append`), bits 1–3 pick that path's minimum capacity, bits 4–7 how many bytes each
///   fill writes at most (all it is offered when 0), as a short `read` would.
///
/// Checks: both decoders give the same frames and the same error (and keep throwing it), the
/// same count of buffered bytes at the end; every frame encodes and decodes back to itself. The
/// whole stream is taken with `next`, the split one with `nextInPlace`, whose REQUEST and REPLY
/// payload ranges must lie inside the buffer they come with.
enum FrameDecoderTarget: FuzzTarget {
    static let name = "frame-decoder"

    static let maximumLengths = [
        FrameDecoder.defaultMaxFrameLength, 1 << 20, FrameDecoder.directPayloadThreshold + 100, 64,
    ]
    static let minimumCapacities = [1, 3, 7, 64, 4096, 64 << 10, 1 << 20, 5]

    struct Outcome: Equatable {
        var frames: [Frame] = []
        var error: ProtocolViolation?
        var buffered = 0
    }

    static func run(_ input: [UInt8]) {
        var cursor = InputCursor(input)
        let plan = cursor.byte()
        let grow = plan & 0x10 != 0 ? (at: cursor.uint16(), extra: cursor.uint16(), lengthAt: cursor.uint16()) : nil
        let chunks = (0..<Int(plan & 0x0F)).map { _ in (length: cursor.uint16(), how: cursor.byte()) }
        var stream = cursor.rest
        if let grow {
            let run = FrameDecoder.directPayloadThreshold + grow.extra
            let lengthAt = grow.lengthAt % (stream.count + 1)
            if lengthAt + 4 <= stream.count {
                let old =
                    UInt32(stream[lengthAt]) | UInt32(stream[lengthAt + 1]) << 8
                    | UInt32(stream[lengthAt + 2]) << 16 | UInt32(stream[lengthAt + 3]) << 24
                let new = old &+ UInt32(run)
                for index in 0..<4 { stream[lengthAt + index] = UInt8(truncatingIfNeeded: new >> (8 * index)) }
            }
            stream.insert(contentsOf: repeatElement(0, count: run), at: grow.at % (stream.count + 1))
        }
        let maximum = maximumLengths[Int(plan >> 5) & 3]
        let drainsEveryChunk = plan & 0x80 != 0

        var whole = FrameDecoder(maxFrameLength: maximum)
        var wholeOutcome = Outcome()
        whole.append(stream)
        drain(&whole, into: &wholeOutcome, inPlace: false)

        var split = FrameDecoder(maxFrameLength: maximum)
        var splitOutcome = Outcome()
        var position = 0
        for chunk in chunks {
            let end = min(stream.count, position + chunk.length)
            feed(stream[position..<end], how: chunk.how, into: &split)
            position = end
            if drainsEveryChunk { drain(&split, into: &splitOutcome, inPlace: true) }
        }
        split.append(stream[position...])
        drain(&split, into: &splitOutcome, inPlace: true)

        require(
            wholeOutcome.frames == splitOutcome.frames,
            "split decoding gave other frames: \(wholeOutcome.frames.count) whole, \(splitOutcome.frames.count) split")
        require(
            wholeOutcome.error == splitOutcome.error,
            "split decoding gave another error: \(String(describing: wholeOutcome.error)) whole, \(String(describing: splitOutcome.error)) split"
        )
        if wholeOutcome.error == nil {
            wholeOutcome.buffered = whole.bufferedByteCount
            splitOutcome.buffered = split.bufferedByteCount
            require(
                wholeOutcome.buffered == splitOutcome.buffered,
                "buffered bytes differ: \(wholeOutcome.buffered) whole, \(splitOutcome.buffered) split")
        }
        for frame in wholeOutcome.frames { FrameChecks.roundTrip(frame) }
    }

    /// Feeds `bytes` the way the chunk's byte says.
    static func feed(_ bytes: ArraySlice<UInt8>, how: UInt8, into decoder: inout FrameDecoder) {
        guard how & 1 != 0 else {
            decoder.append(bytes)
            return
        }
        let capacity = minimumCapacities[Int(how >> 1) & 7]
        let step = Int(how >> 4)
        var rest = bytes[...]
        while !rest.isEmpty {
            let written = decoder.withUnsafeMutableInputBuffer(minimumCapacity: capacity) { free in
                require(!free.isEmpty, "the decoder offered no space to read into")
                let count = min(free.count, rest.count, step == 0 ? Int.max : step)
                free.copyBytes(from: rest.prefix(count))
                return count
            }
            require(written > 0, "a fill that wrote bytes was counted as \(written)")
            rest = rest.dropFirst(written)
        }
    }

    /// Takes frames until the decoder needs more bytes or fails; a failure must repeat.
    static func drain(_ decoder: inout FrameDecoder, into outcome: inout Outcome, inPlace: Bool) {
        guard outcome.error == nil else { return }
        do {
            if inPlace {
                while let decoded = try decoder.nextInPlace() {
                    switch decoded {
                    case .request(_, _, let buffer, let payload?), .reply(_, let buffer, let payload):
                        require(
                            payload.lowerBound >= 0 && payload.upperBound <= buffer.count,
                            "an in-place payload \(payload) lies outside its buffer of \(buffer.count) bytes")
                    default:
                        break
                    }
                    outcome.frames.append(decoded.frame)
                }
            } else {
                while let frame = try decoder.next() { outcome.frames.append(frame) }
            }
        } catch {
            outcome.error = error
            do {
                _ = try decoder.next()
                finding("the decoder went on after \(error)")
            } catch let again {
                require(again == error, "the decoder's second error differs: \(again) after \(error)")
            }
        }
    }

    static func seeds(_ source: SeedSource) throws -> [[UInt8]] {
        let streams = try source.framingStreams()
        var seeds: [[UInt8]] = []
        for stream in streams {
            seeds.append([0x00] + stream)  // whole
            seeds.append([0x83, 1, 0, 0x01, 3, 0, 0x31, 0, 0, 0x00] + stream)  // split, both paths
        }
        // Valid frames back to back, split byte by byte through the buffer path.
        let valid = streams.prefix(6).joined()
        seeds.append([0x8F] + Array(repeating: [1, 0, 0x13], count: 15).joined() + valid)
        // A large REQUEST, MESSAGE and REPLY, grown from small ones; split inside their heads.
        let small: [[UInt8]] = [
            try FrameEncoder.encode(.request(id: 7, channel: "big", payload: [1, 2, 3])),
            try FrameEncoder.encode(.message(channel: "m", payload: [4])),
            try FrameEncoder.encode(.reply(id: 9, result: .bytes([5, 6]))),
        ]
        for frame in small {
            let at = UInt16(frame.count - 1)
            let grow: [UInt8] = [UInt8(at & 0xFF), UInt8(at >> 8), 16, 0, 0, 0]
            seeds.append([0x92] + grow + [7, 0, 0x01, 2, 0, 0x00] + frame + (try FrameEncoder.encode(.ping(token: 1))))
            seeds.append([0x10] + grow + frame)
        }
        return seeds + (try source.committed(name))
    }
}

enum FrameChecks {
    /// A decoded frame encodes and decodes back to itself, with nothing left over.
    static func roundTrip(_ frame: Frame) {
        var decoder = FrameDecoder()
        do {
            // A frame the decoder accepted is one the encoder must accept too.
            decoder.append(try FrameEncoder.encode(frame))
            let again = try decoder.next()
            require(again == frame, "decode(encode(frame)) != frame for \(frame)")
            require(decoder.bufferedByteCount == 0, "bytes left after re-decoding \(frame)")
        } catch {
            finding("a re-encoded frame does not decode: \(error) for \(frame)")
        }
    }
}

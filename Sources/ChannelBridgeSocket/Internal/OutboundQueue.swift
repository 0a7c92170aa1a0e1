/// Bytes waiting to be written, as a list of chunks. Small frames are copied together into
/// blocks so that one `sendmsg` carries many of them; a large payload stays in its own array and
/// goes out without being copied.
struct OutboundQueue {
    /// Frames up to this size are coalesced.
    static let smallChunk = 16 << 10
    /// A coalescing block is not grown past this size.
    static let blockSize = 64 << 10

    private(set) var chunks: [[UInt8]] = []
    /// Bytes of `chunks[0]` already sent.
    private(set) var firstOffset = 0
    private var lastIsBlock = false
    private(set) var byteCount = 0

    var isEmpty: Bool { chunks.isEmpty }

    mutating func append(_ bytes: [UInt8]) {
        guard bytes.count > Self.smallChunk else {
            append(length: bytes.count) { $0.append(contentsOf: bytes) }
            return
        }
        byteCount += bytes.count
        chunks.append(bytes)
        lastIsBlock = false
    }

    /// Appends `length` bytes that `encode` writes: into the last block when they fit, so a small
    /// frame never needs an array of its own.
    mutating func append(length: Int, _ encode: (inout [UInt8]) -> Void) {
        guard length > 0 else { return }
        guard length <= Self.smallChunk else {
            var bytes: [UInt8] = []
            bytes.reserveCapacity(length)
            encode(&bytes)
            append(bytes)
            return
        }
        byteCount += length
        if !(lastIsBlock && chunks[chunks.count - 1].count + length <= Self.blockSize) {
            var block: [UInt8] = []
            block.reserveCapacity(Self.blockSize)
            chunks.append(block)
            lastIsBlock = true
        }
        let before = chunks[chunks.count - 1].count
        encode(&chunks[chunks.count - 1])
        assert(chunks[chunks.count - 1].count - before == length, "a frame encoded to another length than announced")
    }

    /// Removes and returns everything queued.
    mutating func takeAll() -> OutboundQueue {
        defer { self = OutboundQueue() }
        return self
    }

    /// Puts `earlier` (what was taken and not yet sent) back in front of what was queued since.
    mutating func prepend(_ earlier: OutboundQueue) {
        guard !earlier.isEmpty else { return }
        var merged = earlier
        merged.chunks.append(contentsOf: chunks)
        merged.byteCount += byteCount
        merged.lastIsBlock = chunks.isEmpty ? earlier.lastIsBlock : lastIsBlock
        self = merged
    }

    /// Drops `count` sent bytes from the front.
    mutating func consume(_ count: Int) {
        var rest = count
        byteCount -= count
        while rest > 0 {
            let available = chunks[0].count - firstOffset
            if rest >= available {
                rest -= available
                chunks.removeFirst()
                firstOffset = 0
                if chunks.isEmpty { lastIsBlock = false }
            } else {
                firstOffset += rest
                rest = 0
            }
        }
    }
}

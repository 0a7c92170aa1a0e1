/// Bytes waiting to be written: a list of chunks, then a block. Small frames are copied together
/// into the block so that one `send` carries many of them; a large payload stays in its own
/// array and goes out without being copied.
///
/// Draining is O(1) per chunk: sent chunks are skipped by an index and the array is compacted
/// only once the sent part outweighs the rest. The queue also knows how many of its bytes belong
/// to answers (REPLY and PONG frames), for flow control: it keeps runs of consecutive bytes of one
/// class, so an append costs a comparison and an addition whatever the traffic.
///
/// The block is allocated at its full size and filled through a pointer: its first
/// `blockFill` bytes are queued, after every chunk. It stays outside the chunk list, so that in
/// the steady state (a few small frames queued, sent, and the next ones queued) no list is
/// touched: a small frame is a copy into the block, a send of everything sets the fill back to 0,
/// and the block, empty, is the queue's spare for the next frames. A large payload seals the
/// block first (its filled part becomes a chunk, cut to size) so that the payload follows it.
/// The flusher swaps the queue with the batch it has just sent in full
/// (`SocketTransport.outgoing`), whose chunk and run lists keep their capacity, and hands the
/// spare block back (`takeSpareBlock(from:)`). At most one block per queue: an idle connection
/// holds 64 KiB for it.
struct OutboundQueue {
    /// Frames up to this size are coalesced.
    static let smallChunk = 16 << 10
    /// A coalescing block is not grown past this size.
    static let blockSize = 64 << 10

    /// `chunks[head...]` are unsent and come before the block; `chunks[..<head]` are sent and
    /// waiting for compaction.
    private(set) var chunks: [[UInt8]] = []
    private(set) var head = 0
    /// Bytes already sent of the first unsent part: `chunks[head]`, or the block once every
    /// chunk is sent.
    private(set) var firstOffset = 0
    /// `blockSize` bytes whose first `blockFill` are queued, or `[]` when the queue has none.
    /// With nothing queued in it, it is the queue's spare block.
    private(set) var block: [UInt8] = []
    private(set) var blockFill = 0
    private(set) var byteCount = 0
    /// Unsent bytes of answer frames (REPLY, PONG).
    private(set) var answerByteCount = 0

    /// Runs of consecutive bytes that are all answers or all not, oldest first: `runs[runHead...]`,
    /// then the run still growing, kept in `tail` so that an append of the same class (the common
    /// case: a server sends replies, a client requests) touches no array.
    private var runs: [Run] = []
    private var runHead = 0
    private var tail = Run(bytes: 0, isAnswer: false)

    private struct Run {
        var bytes: Int
        var isAnswer: Bool
    }

    var isEmpty: Bool { byteCount == 0 }

    /// A block with nothing queued in it, kept for the next small frames.
    var hasSpareBlock: Bool { blockFill == 0 && !block.isEmpty }

    /// The unsent bytes, in order: each unsent chunk, then the block as far as it is filled (when
    /// it is); `firstOffset` of the first of them are already sent.
    var unsentParts: [ArraySlice<UInt8>] {
        var parts = chunks[head...].map { $0[...] }
        if blockFill > 0 { parts.append(block[..<blockFill]) }
        return parts
    }

    /// Whether a frame of kind byte `kind` answers the peer (REPLY 0x03, PONG 0x07).
    static func isAnswer(kind: UInt8) -> Bool { kind == 0x03 || kind == 0x07 }

    mutating func append(_ bytes: [UInt8], isAnswer: Bool = false) {
        guard bytes.count > Self.smallChunk else {
            guard !bytes.isEmpty else { return }
            let isAnswerFrame = isAnswer
            _ = appendToBlock(length: bytes.count) { target in
                bytes.withUnsafeBytes { target.copyMemory(from: $0) }
                return isAnswerFrame
            }
            return
        }
        sealBlock()
        count(bytes.count, isAnswer: isAnswer)
        chunks.append(bytes)
    }

    /// Appends one whole frame of `length` bytes that `encode` writes (all of them) into the
    /// memory it is given: the block when it fits, so a small frame never needs an array of its
    /// own. Its kind byte says whether it is an answer, which it returns (the payload arrays a
    /// caller appends after a frame's head are counted as the head is).
    @discardableResult
    mutating func append(frameOfLength length: Int, _ encode: (UnsafeMutableRawBufferPointer) -> Void) -> Bool {
        guard length > 0 else { return false }
        guard length <= Self.smallChunk else {
            let bytes = [UInt8](unsafeUninitializedCapacity: length) { buffer, count in
                encode(UnsafeMutableRawBufferPointer(buffer))
                count = length
            }
            let isAnswer = bytes.count > 4 && Self.isAnswer(kind: bytes[4])
            append(bytes, isAnswer: isAnswer)
            return isAnswer
        }
        return appendToBlock(length: length) { frame in
            encode(frame)
            // Read within the same access to the block as the encoding.
            return length > 4 && Self.isAnswer(kind: frame[4])
        }
    }

    /// Has `write` fill the next `length` bytes (at most `smallChunk`) of the block, sealing it
    /// and starting another when they do not fit; `write` says whether they are answer bytes.
    private mutating func appendToBlock(length: Int, _ write: (UnsafeMutableRawBufferPointer) -> Bool) -> Bool {
        if blockFill + length > Self.blockSize { sealBlock() }
        if block.isEmpty {
            // Its bytes are only ever written before they are sent, so they start as they are.
            block = [UInt8](unsafeUninitializedCapacity: Self.blockSize) { _, count in count = Self.blockSize }
        }
        let start = blockFill
        let isAnswer = block.withUnsafeMutableBytes { block in
            write(UnsafeMutableRawBufferPointer(rebasing: block[start..<start + length]))
        }
        blockFill = start + length
        count(length, isAnswer: isAnswer)
        return isAnswer
    }

    /// Makes the block's queued bytes a chunk, cut to what it holds, before a chunk that must
    /// follow them; the queue then has no block. An empty block stays: it comes after anything.
    private mutating func sealBlock() {
        guard blockFill > 0 else { return }
        var sealed: [UInt8] = []
        swap(&sealed, &block)
        sealed.removeSubrange(blockFill...)
        // When every chunk was sent, `firstOffset` was into the block: it now is into this chunk.
        chunks.append(sealed)
        blockFill = 0
    }

    @inline(__always)  // once per frame queued
    private mutating func count(_ length: Int, isAnswer: Bool) {
        byteCount += length
        if isAnswer { answerByteCount += length }
        if tail.isAnswer != isAnswer, tail.bytes > 0 {
            runs.append(tail)
            tail.bytes = 0
        }
        tail.isAnswer = isAnswer
        tail.bytes += length
    }

    /// Takes `other`'s spare block when this queue has no block; otherwise `other`'s is freed.
    /// Either way `other` keeps no spare block.
    mutating func takeSpareBlock(from other: inout OutboundQueue) {
        guard other.hasSpareBlock else { return }
        if block.isEmpty {
            swap(&block, &other.block)
        } else {
            other.block = []
        }
    }

    /// Puts `earlier` (what was taken and not yet sent) back in front of what was queued since,
    /// leaving `earlier` empty. This queue was never sent from (`firstOffset` 0).
    mutating func prepend(_ earlier: inout OutboundQueue) {
        guard !earlier.isEmpty else { return }
        var merged = OutboundQueue()
        swap(&merged, &earlier)
        if isEmpty {
            // Nothing queued since: `merged` stays as it is, with this queue's spare if it has none.
            if merged.block.isEmpty { swap(&merged.block, &block) }
            self = merged
            return
        }
        // Its block is followed by this queue's bytes, and so is no longer appended to.
        merged.sealBlock()
        merged.chunks.append(contentsOf: chunks[head...])
        if blockFill > 0 || merged.block.isEmpty {
            swap(&merged.block, &block)
            merged.blockFill = blockFill
        }
        merged.byteCount += byteCount
        merged.answerByteCount += answerByteCount
        // Rare (the socket was full): the runs are simply laid end to end.
        var allRuns = Array(merged.runs[merged.runHead...])
        if merged.tail.bytes > 0 { allRuns.append(merged.tail) }
        allRuns += runs[runHead...]
        if tail.bytes > 0 { allRuns.append(tail) }
        merged.tail = allRuns.popLast() ?? Run(bytes: 0, isAnswer: false)
        merged.runs = allRuns
        merged.runHead = 0
        self = merged
    }

    /// Drops `count` sent bytes from the front; returns how many of them were answer bytes.
    @discardableResult
    mutating func consume(_ count: Int) -> Int {
        if count == byteCount { return consumeAll() }
        // Part of what is queued: some bytes stay, so the block is never passed here.
        byteCount -= count
        var rest = count
        while rest > 0 {
            guard head < chunks.count else {
                firstOffset += rest  // into the block
                break
            }
            let available = chunks[head].count - firstOffset
            if rest >= available {
                rest -= available
                chunks[head] = []  // release the bytes now; the slot goes at compaction
                head += 1
                firstOffset = 0
            } else {
                firstOffset += rest
                rest = 0
            }
        }
        var answers = 0
        rest = count
        // Tested first: the loop makes `runs` unique before it starts, which for the shared empty
        // array means allocating one, on every call of a queue that only ever sends one class.
        if runHead < runs.count {
            while rest > 0, runHead < runs.count {
                let taken = min(rest, runs[runHead].bytes)
                if runs[runHead].isAnswer { answers += taken }
                runs[runHead].bytes -= taken
                rest -= taken
                if runs[runHead].bytes == 0 { runHead += 1 }
            }
        }
        if rest > 0 {
            // The rest comes out of the run still growing.
            if tail.isAnswer { answers += rest }
            tail.bytes -= rest
        }
        answerByteCount -= answers
        compactIfWorthIt()
        return answers
    }

    /// `consume` of everything queued, the usual outcome of a send: the queue is emptied
    /// wholesale, and its block, empty now, stays as the spare one for the next frames (its bytes
    /// are room: nothing needs emptying).
    private mutating func consumeAll() -> Int {
        let answers = answerByteCount
        // Usually there are no chunks, only the block.
        if !chunks.isEmpty { chunks.removeAll(keepingCapacity: true) }
        (head, firstOffset, blockFill, byteCount, answerByteCount) = (0, 0, 0, 0, 0)
        if !runs.isEmpty { runs.removeAll(keepingCapacity: true) }
        runHead = 0
        tail.bytes = 0
        return answers
    }

    /// After a partial `consume`: drops the sent chunks' slots once they outweigh the rest.
    private mutating func compactIfWorthIt() {
        if head >= 32, head * 2 >= chunks.count {
            chunks.removeFirst(head)
            head = 0
        }
        if runHead == runs.count {
            if !runs.isEmpty { runs.removeAll(keepingCapacity: true) }
            runHead = 0
        } else if runHead >= 32, runHead * 2 >= runs.count {
            runs.removeFirst(runHead)
            runHead = 0
        }
    }
}

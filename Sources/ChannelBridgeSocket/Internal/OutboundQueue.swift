/// Bytes waiting to be written, as a list of chunks. Small frames are copied together into
/// blocks so that one `sendmsg` carries many of them; a large payload stays in its own array and
/// goes out without being copied.
///
/// Draining is O(1) per chunk: sent chunks are skipped by an index and the array is compacted
/// only once the sent part outweighs the rest. The queue also knows how many of its bytes belong
/// to answers (REPLY and PONG frames), for flow control: it keeps runs of consecutive bytes of one
/// class, so an append costs a comparison and an addition whatever the traffic.
///
/// A block is allocated at its full size and filled through a pointer (issue 18): its bytes are
/// `lastFill` of them while it is the last chunk and still being appended to, and it is cut to
/// what it holds once another chunk follows it (`sealLastBlock`). Storage is reused in the
/// steady state: the last block, once sent, is kept as `spareBlock` for the next small frames,
/// and the flusher swaps the queue with the batch it has just sent in full
/// (`SocketTransport.outgoing`), whose chunk and run lists keep their capacity, so a frame costs
/// no allocation there. At most one spare block per queue, and an idle
/// connection keeps one (`takeSpareBlock(from:)`): it holds 64 KiB more while idle.
struct OutboundQueue {
    /// Frames up to this size are coalesced.
    static let smallChunk = 16 << 10
    /// A coalescing block is not grown past this size.
    static let blockSize = 64 << 10

    /// `chunks[head...]` are unsent; `chunks[..<head]` are sent and waiting for compaction.
    private(set) var chunks: [[UInt8]] = []
    private(set) var head = 0
    /// Bytes of `chunks[head]` already sent.
    private(set) var firstOffset = 0
    private var lastIsBlock = false
    /// How many bytes of the last chunk are queued, when it is a block (`lastIsBlock`).
    private var lastFill = 0
    /// A block of `blockSize` bytes whose content is room, or `[]`: the last block, kept once it was sent.
    private(set) var spareBlock: [UInt8] = []
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

    var isEmpty: Bool { head == chunks.count }

    /// The unsent chunks, for `sendmsg`: the last one's first `lastChunkCount` bytes only.
    var unsentChunks: ArraySlice<[UInt8]> { chunks[head...] }

    /// The bytes of the last chunk that are queued: a block's fill, else the whole array.
    var lastChunkCount: Int { lastIsBlock ? lastFill : chunks.last?.count ?? 0 }

    /// The bytes of chunk `index` that are queued.
    func queuedCount(ofChunk index: Int) -> Int {
        index == chunks.count - 1 && lastIsBlock ? lastFill : chunks[index].count
    }

    /// Whether a frame of kind byte `kind` answers the peer (REPLY 0x03, PONG 0x07).
    static func isAnswer(kind: UInt8) -> Bool { kind == 0x03 || kind == 0x07 }

    mutating func append(_ bytes: [UInt8], isAnswer: Bool = false) {
        guard bytes.count > Self.smallChunk else {
            guard !bytes.isEmpty else { return }
            let isAnswerFrame = isAnswer
            appendToBlock(length: bytes.count) { target in
                bytes.withUnsafeBytes { target.copyMemory(from: $0) }
                return isAnswerFrame
            }
            return
        }
        sealLastBlock()
        count(bytes.count, isAnswer: isAnswer)
        chunks.append(bytes)
    }

    /// Appends one whole frame of `length` bytes that `encode` writes (all of them) into the
    /// memory it is given: the last block when it fits, so a small frame never needs an array of
    /// its own. Its kind byte says whether it is an answer.
    mutating func append(frameOfLength length: Int, _ encode: (UnsafeMutableRawBufferPointer) -> Void) {
        guard length > 0 else { return }
        guard length <= Self.smallChunk else {
            let bytes = [UInt8](unsafeUninitializedCapacity: length) { buffer, count in
                encode(UnsafeMutableRawBufferPointer(buffer))
                count = length
            }
            append(bytes, isAnswer: bytes.count > 4 && Self.isAnswer(kind: bytes[4]))
            return
        }
        appendToBlock(length: length) { frame in
            encode(frame)
            // Read within the same access to the block as the encoding, so that classifying the
            // frame costs no extra access to the array of chunks.
            return length > 4 && Self.isAnswer(kind: frame[4])
        }
    }

    /// Has `write` fill the next `length` bytes (at most `smallChunk`) of the last block, starting
    /// a block when they do not fit; `write` says whether they are answer bytes.
    private mutating func appendToBlock(length: Int, _ write: (UnsafeMutableRawBufferPointer) -> Bool) {
        if !(lastIsBlock && lastFill + length <= Self.blockSize) { appendBlock() }
        let start = lastFill
        let isAnswer = chunks[chunks.count - 1].withUnsafeMutableBytes { block in
            write(UnsafeMutableRawBufferPointer(rebasing: block[start..<start + length]))
        }
        lastFill = start + length
        count(length, isAnswer: isAnswer)
    }

    /// Starts a new coalescing block: the spare one when there is one.
    private mutating func appendBlock() {
        sealLastBlock()
        var block: [UInt8] = []
        swap(&block, &spareBlock)
        if block.count != Self.blockSize {
            // Its bytes are only ever written before they are sent, so they start as they are.
            block = [UInt8](unsafeUninitializedCapacity: Self.blockSize) { _, count in count = Self.blockSize }
        }
        chunks.append(block)
        lastIsBlock = true
        lastFill = 0
    }

    /// Cuts the last block to what it holds, before another chunk follows it.
    private mutating func sealLastBlock() {
        guard lastIsBlock else { return }
        lastIsBlock = false
        let last = chunks.count - 1
        if chunks[last].count != lastFill { chunks[last].removeSubrange(lastFill...) }
    }

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

    /// Takes `other`'s spare block when this queue has none; otherwise `other`'s is freed. Either
    /// way `other` keeps no spare block.
    mutating func takeSpareBlock(from other: inout OutboundQueue) {
        guard other.spareBlock.capacity > 0 else { return }
        if spareBlock.capacity == 0 {
            swap(&spareBlock, &other.spareBlock)
        } else {
            other.spareBlock = []
        }
    }

    /// Puts `earlier` (what was taken and not yet sent) back in front of what was queued since,
    /// leaving `earlier` empty.
    mutating func prepend(_ earlier: inout OutboundQueue) {
        guard !earlier.isEmpty else { return }
        var merged = OutboundQueue()
        swap(&merged, &earlier)
        // Its last block is followed by this queue's chunks, if any, and so is no longer appended to.
        if !isEmpty { merged.sealLastBlock() }
        merged.chunks.append(contentsOf: chunks[head...])
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
        if !isEmpty { (merged.lastIsBlock, merged.lastFill) = (lastIsBlock, lastFill) }
        if merged.spareBlock.capacity == 0 { swap(&merged.spareBlock, &spareBlock) }
        self = merged
    }

    /// Drops `count` sent bytes from the front; returns how many of them were answer bytes.
    @discardableResult
    mutating func consume(_ count: Int) -> Int {
        if count == byteCount { return consumeAll() }
        // Part of what is queued: some bytes stay, so the last chunk is never passed here.
        byteCount -= count
        var rest = count
        while rest > 0 {
            let available = queuedCount(ofChunk: head) - firstOffset
            if rest >= available {
                rest -= available
                chunks[head] = []   // release the bytes now; the slot goes at compaction
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
    /// wholesale, keeping its last block, our own, as the spare one for the next frames instead
    /// of freeing it and allocating another (its bytes are room: nothing needs emptying).
    private mutating func consumeAll() -> Int {
        let answers = answerByteCount
        if lastIsBlock, spareBlock.capacity == 0 { swap(&spareBlock, &chunks[chunks.count - 1]) }
        // Usually one chunk: `removeLast` is a few instructions where `removeAll(keepingCapacity:)`
        // goes through the generic `replaceSubrange`.
        if chunks.count == 1 { chunks.removeLast() } else { chunks.removeAll(keepingCapacity: true) }
        (head, firstOffset, lastIsBlock, byteCount, answerByteCount) = (0, 0, false, 0, 0)
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

@testable import ChannelBridgeSocket
import Testing

/// The socket's outbound queue: bytes leave in the order queued, whatever the chunking, draining
/// costs O(1) per chunk (no shifting of what is left), and it knows how many of its bytes are
/// answers (REPLY and PONG frames), which flow control reads.
@Suite struct OutboundQueueTests {
    /// A fake frame of `length` bytes whose kind byte is `kind`, its bytes otherwise `fill`.
    static func frame(kind: UInt8, length: Int, fill: UInt8) -> [UInt8] {
        var bytes = [UInt8](repeating: fill, count: length)
        bytes[4] = kind
        return bytes
    }

    /// `queue.append(frameOfLength:)` with `bytes` as the frame, copied into the memory given.
    static func appendFrame(_ bytes: [UInt8], to queue: inout OutboundQueue) {
        queue.append(frameOfLength: bytes.count) { target in
            #expect(target.count == bytes.count)
            bytes.withUnsafeBytes { target.copyMemory(from: $0) }
        }
    }

    /// The queued bytes of each unsent chunk, then of the block as far as it is filled.
    static func unsentBytes(_ queue: OutboundQueue) -> [ArraySlice<UInt8>] {
        queue.unsentParts
    }

    @Test func bytesLeaveInOrderAndAnswersAreCountedWhateverTheChunking() {
        var queue = OutboundQueue()
        var expected: [UInt8] = []
        // answersBefore[n]: how many of the first n bytes queued are part of an answer. Counts over
        // a range are then a subtraction, not a pass over the range's bytes per step (which took
        // 26 s of one pool thread under AddressSanitizer).
        var answersBefore: [Int] = [0]
        var generator = SystemRandomNumberGenerator()
        for index in 0..<3000 {
            let kind: UInt8 = [0x02, 0x03, 0x04, 0x07][index % 4]
            let length = index % 97 == 0 ? OutboundQueue.smallChunk + 1 + index : 5 + index % 300
            let bytes = Self.frame(kind: kind, length: length, fill: UInt8(truncatingIfNeeded: index))
            if index % 3 == 0 {
                Self.appendFrame(bytes, to: &queue)
            } else {
                queue.append(bytes, isAnswer: OutboundQueue.isAnswer(kind: kind))
            }
            expected += bytes
            let isAnswer = kind == 0x03 || kind == 0x07, base = answersBefore[answersBefore.count - 1]
            answersBefore += (1...length).map { isAnswer ? base + $0 : base }
        }
        #expect(queue.byteCount == expected.count)
        #expect(answersBefore.count == expected.count + 1)
        #expect(queue.answerByteCount == answersBefore[expected.count])

        var sent: [UInt8] = []
        var consumed = 0
        while !queue.isEmpty {
            // Take what a partial send would: part of the first chunk, or across several.
            let unsent = Self.unsentBytes(queue)
            #expect(queue.blockFill == 0 || unsent.last?.count == queue.blockFill)
            #expect(unsent.allSatisfy { !$0.isEmpty })
            var available = unsent.reduce(0) { $0 + $1.count } - queue.firstOffset
            let step = min(available, Int.random(in: 1...40_000, using: &generator))
            var left = step
            var chunkIndex = 0
            var offset = queue.firstOffset
            while left > 0 {
                let chunk = unsent[chunkIndex]
                let take = min(left, chunk.count - offset)
                sent += chunk[chunk.startIndex + offset..<chunk.startIndex + offset + take]
                left -= take
                offset = 0
                chunkIndex += 1
            }
            let answers = queue.consume(step)
            #expect(answers == answersBefore[consumed + step] - answersBefore[consumed])
            consumed += step
            available -= step
            #expect(queue.byteCount == expected.count - consumed)
            #expect(queue.answerByteCount == answersBefore[expected.count] - answersBefore[consumed])
        }
        #expect(sent == expected)
        #expect(queue.chunks.isEmpty, "a drained queue keeps no chunks")
    }

    @Test func drainingOneChunkAtATimeNeverKeepsMoreThanTwiceWhatIsLeft() {
        var queue = OutboundQueue()
        let count = 1000
        for index in 0..<count {
            queue.append(
                Self.frame(kind: 0x03, length: OutboundQueue.smallChunk + 1, fill: UInt8(truncatingIfNeeded: index)),
                isAnswer: true)
        }
        for left in stride(from: count - 1, through: 0, by: -1) {
            queue.consume(OutboundQueue.smallChunk + 1)
            #expect(queue.unsentParts.count == left)
            // Sent chunks are released at once and compacted away in bulk, never shifted one by one.
            #expect(queue.chunks.count <= max(32, 2 * left + 1))
            if left > 0 { #expect(queue.unsentParts.first?[5] == UInt8(truncatingIfNeeded: count - left)) }
        }
        #expect(queue.isEmpty && queue.answerByteCount == 0)
    }

    @Test func prependPutsWhatWasNotSentBackInFront() {
        var queue = OutboundQueue()
        queue.append(Self.frame(kind: 0x03, length: 100, fill: 1), isAnswer: true)
        var taken = OutboundQueue()
        swap(&queue, &taken)
        _ = taken.consume(30)
        queue.append(Self.frame(kind: 0x02, length: 50, fill: 2), isAnswer: false)
        queue.prepend(&taken)
        #expect(taken.isEmpty && taken.byteCount == 0)
        // Both frames went into blocks; the earlier block, partly sent and now followed by the
        // later one, is a chunk cut to what it holds, and the later stays the block being filled.
        let unsent = Self.unsentBytes(queue)
        #expect(
            Array(unsent.joined().dropFirst(queue.firstOffset))
                == Array(Self.frame(kind: 0x03, length: 100, fill: 1)[30...])
                + Self.frame(kind: 0x02, length: 50, fill: 2))
        #expect(queue.chunks.map(\.count) == [100] && queue.firstOffset == 30 && queue.blockFill == 50)
        #expect(queue.byteCount == 120)
        #expect(queue.answerByteCount == 70)
        #expect(queue.consume(70) == 70)
        #expect(queue.consume(50) == 0)
        #expect(queue.isEmpty)
    }
    /// The address of `bytes`' storage, to tell a reused buffer from a new one.
    static func address(_ bytes: [UInt8]) -> UInt {
        bytes.withUnsafeBufferPointer { UInt(bitPattern: $0.baseAddress) }
    }

    @Test func aBatchSentInFullLeavesItsBlockForTheNextFrames() {
        // The flusher's cycle: swap the queue with the empty outgoing batch, send, swap back.
        var queue = OutboundQueue()
        var outgoing = OutboundQueue()
        Self.appendFrame(Self.frame(kind: 0x02, length: 10, fill: 1), to: &queue)
        #expect(queue.chunks.isEmpty && queue.blockFill == 10, "a small frame goes into the block, not the list")
        let block = Self.address(queue.block)
        swap(&queue, &outgoing)
        queue.takeSpareBlock(from: &outgoing)
        #expect(queue.block.isEmpty, "a block with frames in it is not spare")
        #expect(outgoing.consume(4) == 0)
        #expect(!outgoing.hasSpareBlock, "a block partly sent is not spare")
        #expect(outgoing.consume(6) == 0)
        #expect(outgoing.isEmpty && outgoing.chunks.isEmpty)
        #expect(outgoing.hasSpareBlock && outgoing.block.count == OutboundQueue.blockSize)
        // Nothing queued meanwhile: the queue takes the spare block.
        queue.takeSpareBlock(from: &outgoing)
        #expect(!outgoing.hasSpareBlock && outgoing.block.isEmpty, "an idle connection keeps one spare block")
        #expect(queue.hasSpareBlock)
        let next = Self.frame(kind: 0x03, length: 7, fill: 2)
        Self.appendFrame(next, to: &queue)
        #expect(Self.unsentBytes(queue) == [next[...]] && queue.blockFill == 7)
        #expect(Self.address(queue.block) == block, "the same block again, not a new one")
        #expect(queue.byteCount == 7 && queue.answerByteCount == 7)
        #expect(!queue.hasSpareBlock)
    }

    @Test func aSecondSpareBlockIsFreedNotKept() {
        var queue = OutboundQueue()
        var other = OutboundQueue()
        for target in [0, 1] {
            var q = OutboundQueue()
            Self.appendFrame(Self.frame(kind: 0x02, length: 10, fill: 1), to: &q)
            q.consume(10)
            if target == 0 { queue = q } else { other = q }
        }
        #expect(queue.hasSpareBlock && other.hasSpareBlock)
        let kept = Self.address(queue.block)
        queue.takeSpareBlock(from: &other)
        #expect(!other.hasSpareBlock && other.block.isEmpty)
        #expect(queue.hasSpareBlock && Self.address(queue.block) == kept)
    }

    @Test func aLargePayloadSealsTheBlockBeforeIt() {
        var queue = OutboundQueue()
        let payload = Self.frame(kind: 0x02, length: OutboundQueue.blockSize + 1, fill: 3)
        Self.appendFrame(Self.frame(kind: 0x02, length: 10, fill: 1), to: &queue)
        queue.append(payload)
        // The block is followed by another chunk: it is cut to the frame it holds, and the queue
        // has no block until the next small frame.
        #expect(queue.chunks.map(\.count) == [10, payload.count] && queue.block.isEmpty && queue.blockFill == 0)
        let after = Self.frame(kind: 0x03, length: 20, fill: 4)
        Self.appendFrame(after, to: &queue)
        #expect(
            Self.unsentBytes(queue) == [Self.frame(kind: 0x02, length: 10, fill: 1)[...], payload[...], after[...]])
        var batch = OutboundQueue()
        swap(&queue, &batch)
        #expect(batch.consume(10 + payload.count) == 0)
        #expect(batch.firstOffset == 0 && Self.unsentBytes(batch) == [after[...]])
        #expect(batch.consume(20) == 20)
        #expect(batch.isEmpty && batch.hasSpareBlock, "the block sent last is kept")
        #expect(payload.count == OutboundQueue.blockSize + 1 && payload[5] == 3, "the caller's array is untouched")
    }

    @Test func aPartlySentBatchOfChunksTakesTheQueuesSpareBlockBack() {
        var queue = OutboundQueue()
        Self.appendFrame(Self.frame(kind: 0x02, length: 10, fill: 1), to: &queue)
        queue.consume(10)
        #expect(queue.hasSpareBlock)
        let spare = Self.address(queue.block)
        var earlier = OutboundQueue()
        let payload = Self.frame(kind: 0x03, length: OutboundQueue.smallChunk + 1, fill: 5)
        earlier.append(payload, isAnswer: true)
        earlier.consume(100)
        queue.prepend(&earlier)
        #expect(earlier.isEmpty && earlier.block.isEmpty)
        #expect(queue.byteCount == payload.count - 100 && queue.answerByteCount == payload.count - 100)
        #expect(Array(Self.unsentBytes(queue).joined().dropFirst(queue.firstOffset)) == Array(payload[100...]))
        #expect(queue.hasSpareBlock && Self.address(queue.block) == spare)
    }
}

import ChannelBridgeMessenger
import ChannelBridgePlatform
import Dispatch

/// The writing half of `SocketTransport`: queueing, the flusher that sends without blocking, the
/// writer thread that takes over a batch the socket would not take at once, and what a failed
/// write does to the connection (the design is in `SocketTransport`'s comment).
extension SocketTransport {

    /// Queues what `add` appends, and sends it or leaves it for the reader (see the type's
    /// comment). With `sendingNowOnReader`, the reader thread sends what it queued at once, in
    /// this lock, when the socket takes all of it: the frame ends the delivery, so nothing is
    /// coming to join it, and the end of the delivery then finds nothing left (saving the lock
    /// `flushDeferred` would take).
    ///
    /// With `directFrame` (the frame's length, which `encode` writes), a frame the reader thread
    /// would send at once, with nothing queued before it and nobody flushing, is encoded into the
    /// reader's scratch memory and sent from there, bypassing the queue and its accounting (issue
    /// 18); only what the socket does not take is queued, in the same lock, as `add` would have.
    @inline(__always)  // each writer gets a copy with its `add` inlined and the flag constant
    func enqueue(
        sendingNowOnReader: Bool = false, directFrame: Int = 0,
        _ encode: (UnsafeMutableRawBufferPointer) -> Void = { _ in }, _ add: (inout OutboundQueue) -> Void
    ) {
        let me = ThreadIdentity.current
        let highWater = self.highWater
        var crossed = Crossings()
        let (mustFlush, crossedUp, leftForReader) = state.withLock { state -> (Bool, Bool, Bool) in
            guard !state.closeRequested, !state.isShutDown else { return (false, false, false) }
            var rest: UnsafeRawBufferPointer?
            if directFrame > 0, directFrame <= Self.directSendLimit, !state.flushing, state.queue.isEmpty,
                let reader = state.reader, reader == me, sendingNowOnReader || executor.runningLoneJob
            {
                let frame = readerFrame(directFrame)
                encode(frame)
                let sent = Syscalls.sendNow(fd, UnsafeRawBufferPointer(frame))
                if sent == directFrame { return (false, false, false) }
                // The rest (all of it, on an error, which a flush meets again and reports) is
                // queued as any frame, for the end of the delivery.
                rest = UnsafeRawBufferPointer(rebasing: frame[max(sent, 0)...])
            }
            let (bytesBefore, answersBefore) = (state.queue.byteCount, state.queue.answerByteCount)
            if let rest {
                // The frame's kind is in the scratch it was encoded into, of which `rest` is the tail.
                let isAnswer = directFrame > 4 && OutboundQueue.isAnswer(kind: reader.withValue { $0.frameScratch![4] })
                state.queue.append(Array(rest), isAnswer: isAnswer)
            } else {
                add(&state.queue)
            }
            state.unsent += state.queue.byteCount - bytesBefore
            state.unsentAnswers += state.queue.answerByteCount - answersBefore
            var crossedUp = false
            if !state.overHighWater, state.unsent > highWater {
                state.overHighWater = true
                outboundFlow.markUnwritable()
                crossedUp = true
            }
            if !state.answersOverHighWater, state.unsentAnswers > highWater {
                state.answersOverHighWater = true
                outboundFlow.markAnswerBacklog(true)
                crossedUp = true
            }
            if state.flushing { return (false, crossedUp, false) }
            // The reader sends what it queued once its delivery is done, or once it has queued
            // enough that the peer can start on it while the reader goes on.
            if let reader = state.reader, reader == me, state.queue.byteCount < Self.readerFlushThreshold {
                if sendingNowOnReader || executor.runningLoneJob,
                    Self.sendAllNow(fd, &state, lowWater: lowWater, crossed: &crossed)
                {
                    return (false, crossedUp, false)
                }
                return (false, crossedUp, true)
            }
            takeFlushRoleAndBatch(&state)
            return (true, crossedUp, false)
        }
        // Only the reader thread gets here with `leftForReader` set: its own flag.
        if leftForReader { reader.withValue { $0.leftFrames = true } }
        if crossedUp { outboundFlow.stateChanged() }
        act(on: crossed)
        if mustFlush { flush(blocking: false, holdingBatch: true) }
    }

    /// Frames the reader sends from its scratch memory (`enqueue`'s direct send) are at most this
    /// long: those it leaves for the end of a delivery are all shorter than this anyway.
    static var directSendLimit: Int { readerFlushThreshold }

    /// The first `length` (at most `directSendLimit`) bytes of the reader's scratch memory. Reader
    /// thread only, under `state`'s lock.
    private func readerFrame(_ length: Int) -> UnsafeMutableRawBufferPointer {
        if let scratch = reader.withValue({ $0.frameScratch }) {
            return UnsafeMutableRawBufferPointer(rebasing: scratch[..<length])
        }
        let scratch = UnsafeMutableRawBufferPointer.allocate(byteCount: Self.directSendLimit, alignment: 8)
        reader.withValue { $0.frameScratch = scratch }
        return UnsafeMutableRawBufferPointer(rebasing: scratch[..<length])
    }

    /// Under the lock, with nobody flushing: one non-blocking send of the queue (the reader's few
    /// frames), consumed and accounted at once. Whether the socket took all of it; what it did not
    /// take stays queued, in order, for a flusher.
    private static func sendAllNow(_ fd: Int32, _ state: inout State, lowWater: Int, crossed: inout Crossings) -> Bool {
        let count = sendNow(fd, state.queue)
        guard count > 0 else { return false }
        let answers = state.queue.consume(count)
        crossed = state.account(sent: count, answers: answers, lowWater: lowWater)
        return state.queue.isEmpty
    }

    /// Sends what the reader thread queued and left for the end of its delivery. Called by the
    /// reader thread only.
    ///
    /// Those frames are few (under `readerFlushThreshold` bytes: any other thread that queues
    /// takes the flush role and sends itself), so they go out in one non-blocking send under the
    /// lock that finds them, and are accounted in the same acquisition; only when the socket does
    /// not take them all does the reader take the flush role for the rest, as any flusher does
    /// (one lock acquisition where taking and giving up the role would take two). A
    /// non-blocking send is as short a hold as the eventfd writes this lock already allows.
    @inline(__always)  // the reader calls it after every read, mostly to find nothing left
    func flushDeferred() {
        if reader.withValue({ $0.leftFrames }) { flushFramesLeftByReader() }
    }

    private func flushFramesLeftByReader() {
        reader.withValue { $0.leftFrames = false }
        let (mustFlush, crossed) = state.withLock { state -> (Bool, Crossings) in
            guard !state.flushing, !state.queue.isEmpty else { return (false, Crossings()) }
            var crossed = Crossings()
            if !state.closeRequested, Self.sendAllNow(fd, &state, lowWater: lowWater, crossed: &crossed) {
                return (false, crossed)
            }
            // The rest (or an error, which the flush meets again and reports) as any flusher.
            takeFlushRoleAndBatch(&state)
            return (true, crossed)
        }
        act(on: crossed)
        if mustFlush { flush(blocking: false, holdingBatch: true) }
    }

    /// Under the lock, with something queued and nobody flushing: takes the flush role and the
    /// queue as the batch to send (`outgoing`), so that the flush starts sending without taking
    /// the lock again.
    private func takeFlushRoleAndBatch(_ state: inout State) {
        state.flushing = true
        swap(&state.queue, &outgoing)
        state.queue.takeSpareBlock(from: &outgoing)
    }

    /// Sends until the queue is empty, or hands it to the writer thread when the socket is full.
    /// Called by the thread holding the flush role.
    func flushWithoutBlocking() {
        flush(blocking: false)
    }

    /// Puts the part of `outgoing` the socket did not take back in front of the queue and lets the
    /// writer thread, started on first need, take over the flush role.
    func handToWriter(sent: (bytes: Int, answers: Int)) {
        let (start, crossed) = state.withLock { state -> (Bool, Crossings) in
            let crossed = state.account(sent: sent.bytes, answers: sent.answers, lowWater: lowWater)
            state.queue.prepend(&outgoing)
            state.handedToWriter = true
            guard state.writer == .notStarted else { return (false, crossed) }
            state.writer = .running
            return (true, crossed)
        }
        act(on: crossed)
        if start {
            let result = startThread("cb writer \(fd)") { [self] in runWriter() }
            if result != 0 {
                // No thread to wait for room: this connection cannot be served any more.
                state.withLock { state in
                    state.writer = .exited
                    state.handedToWriter = false
                }
                abandonWriting(failure: result, what: "starting a writer thread")
                return
            }
        }
        writerWake.signal()
    }

    func runWriter() {
        while true {
            writerWake.wait()
            enum Step { case flush, exit([CheckedContinuation<Void, Never>]?), idle }
            let step = state.withLock { state -> Step in
                if state.handedToWriter { return .flush }
                guard state.writerShouldExit else { return .idle }
                state.writer = .exited
                return .exit(state.takeDescriptorCloseIfDue())
            }
            switch step {
            case .flush:
                flushBlocking()
            case .exit(let closeNow):
                if let closeNow { closeDescriptor(closeNow) }
                return
            case .idle:
                continue
            }
        }
    }

    /// The writer thread's flush: waits for room with `poll`, gives up at the close deadline.
    func flushBlocking() {
        flush(blocking: true)
    }

    /// Sends what is queued until the queue is empty, then gives up the flush role. When the socket
    /// is full, the flusher (`blocking` false) hands the batch to the writer thread; the writer
    /// (`blocking` true) waits for room until the close deadline, then drops what is left.
    /// With `holdingBatch`, the caller took the queue as `outgoing` when it took the role, and
    /// sending starts at once.
    @inline(__always)  // each caller gets its own copy with `blocking` constant (the flusher is hot)
    private func flush(blocking: Bool, holdingBatch: Bool = false) {
        var sent = (bytes: 0, answers: 0)
        var holdsBatch = holdingBatch
        while true {
            if !holdsBatch {
                guard takeNextBatch(after: sent, blocking: blocking) else { return }
            }
            holdsBatch = false
            sent = (0, 0)
            switch send(&outgoing, blocking: blocking, sent: &sent) {
            case .all:
                continue
            case .wouldBlock where !blocking:
                handToWriter(sent: sent)
                return
            case .wouldBlock:
                abandonWriting(failure: nil)  // the close deadline passed
            case .failed(let code):
                abandonWriting(failure: code)
            }
            if blocking {
                state.withLock { $0.handedToWriter = false }
                writerWake.signal()  // let the writer's loop notice an exit request
            }
            return
        }
    }

    /// Accounts for what the last batch `sent`, then takes the queue as the next batch (true), or
    /// gives up the flush role when it is empty (false).
    @inline(__always)
    private func takeNextBatch(after sent: (bytes: Int, answers: Int), blocking: Bool) -> Bool {
        // Seeing the queue empty and giving up the flush role happen under one lock: a writer
        // that queues in between would otherwise see `flushing` still set and leave its bytes
        // for nobody to send. `outgoing` is empty here (sent in full, or never used): the
        // queue and it trade places, storage and all, so the next frames need no allocation.
        let (next, crossed) = state.withLock { state -> (FlushStep, Crossings) in
            let crossed = state.account(sent: sent.bytes, answers: sent.answers, lowWater: lowWater)
            if state.queue.isEmpty {
                state.queue.takeSpareBlock(from: &outgoing)
                if blocking { state.handedToWriter = false }
                state.flushing = false
                return (
                    .released(shutDown: state.takeShutdownIfDue(), closeNow: state.takeDescriptorCloseIfDue()), crossed
                )
            }
            swap(&state.queue, &outgoing)
            state.queue.takeSpareBlock(from: &outgoing)
            return (.send, crossed)
        }
        act(on: crossed)
        guard case .send = next else {
            finishReleasedFlush(next)
            return false
        }
        return true
    }

    /// Sends as much of `batch` as the socket takes now (see `Syscalls.sendNow`).
    private static func sendNow(_ fd: Int32, _ batch: borrowing OutboundQueue) -> Int {
        let (head, firstOffset, fill) = (batch.head, batch.firstOffset, batch.blockFill)
        // The common case, small frames only: the block's bytes, with no list to walk.
        if head == batch.chunks.count {
            return batch.block.withUnsafeBytes {
                Syscalls.sendNow(fd, UnsafeRawBufferPointer(rebasing: $0[firstOffset..<fill]))
            }
        }
        if fill == 0 { return Syscalls.sendNow(fd, batch.chunks[head...], firstOffset: firstOffset) }
        // Chunks, then the block (a large payload followed by small frames).
        return Syscalls.sendNow(
            fd, (batch.chunks[head...] + [batch.block])[...], firstOffset: firstOffset, lastCount: fill)
    }

    /// Sends `batch`; `.wouldBlock` from a blocking send means the close deadline passed. Adds
    /// what went out to `sent`.
    func send(_ batch: inout OutboundQueue, blocking: Bool, sent: inout (bytes: Int, answers: Int)) -> Sent {
        while !batch.isEmpty {
            let count = Self.sendNow(fd, batch)
            if count >= 0 {
                sent.answers += batch.consume(count)
                sent.bytes += count
                continue
            }
            let code = Int32(-count)
            guard code == Errno.EAGAIN || code == Errno.EWOULDBLOCK else { return .failed(code) }
            guard blocking else { return .wouldBlock }
            while !Syscalls.waitWritable(fd, milliseconds: 100) {
                let expired = state.withLock { $0.closeRequested && ContinuousClock.now >= $0.closeDeadline }
                if expired { return .wouldBlock }
            }
        }
        return .all
    }

    enum FlushStep {
        case send
        case released(shutDown: Bool, closeNow: [CheckedContinuation<Void, Never>]?)
    }

    /// After the flush role was given up: shut down or close if that was due at that moment.
    func finishReleasedFlush(_ step: FlushStep) {
        guard case .released(let shutDown, let closeNow) = step else { return }
        if shutDown { Syscalls.shutdown(fd) }
        if let closeNow { closeDescriptor(closeNow) }
    }

    /// Wakes whoever waits for a mark that was crossed.
    func act(on crossed: Crossings) {
        if crossed.writable { outboundFlow.becameWritable() }
        if crossed.answersDrained {
            outboundFlow.markAnswerBacklog(false)
            inputMayResume()
            if !crossed.writable { outboundFlow.stateChanged() }
        }
    }

    /// The socket cannot take bytes any more (peer gone, or the close deadline passed): drop what
    /// is queued and shut down, which ends the reader and so the session. A failed write (not a
    /// deadline) ends the session at once, before the reader delivers anything more.
    /// Called only by the thread holding the flush role, which it gives up here.
    func abandonWriting(failure: Int32?, what: String = "writing to the socket") {
        outgoing = OutboundQueue()  // before the role is given up: the next holder owns `outgoing`
        let (shutDown, closeNow, crossed, connection) = state.withLock { state in
            let crossed = state.dropAll()
            state.flushing = false
            let shutDown = !state.isShutDown
            state.isShutDown = true
            return (shutDown, state.takeDescriptorCloseIfDue(), crossed, state.connection)
        }
        if let failure, let connection {
            connection.receiveEnd(error: MessengerError(.transport, "\(what) failed: \(Syscalls.errorText(failure))"))
        }
        if shutDown { Syscalls.shutdown(fd) }
        act(on: crossed)
        if let closeNow { closeDescriptor(closeNow) }
    }

    func closeDescriptor(_ waiters: [CheckedContinuation<Void, Never>]) {
        Syscalls.closeDescriptor(fd)
        let callback = state.withLock { state -> (@Sendable () -> Void)? in
            if state.wakeFD >= 0 {
                Syscalls.closeDescriptor(state.wakeFD)
                state.wakeFD = -1
            }
            defer { state.onDescriptorClosed = nil }
            return state.onDescriptorClosed
        }
        // The listener's count first: whoever waits for the close may connect again at once.
        callback?()
        for waiter in waiters { waiter.resume() }
    }
}

import ChannelBridgeMessenger
import ChannelBridgePlatform
import Dispatch
import FoundationEssentials
import Glibc
import Synchronization

/// The `FrameTransport` of one connected socket, and the owner of its descriptor.
///
/// Writing: whichever thread writes while nobody else is writing becomes the flusher and sends
/// everything queued with non-blocking `sendmsg` calls; writers that come while a flush is under
/// way only queue, so under load one system call carries many frames. Frames the reader thread
/// writes while it delivers (replies of handlers that answered at once, PONGs) are queued and
/// sent in one go after the delivery. When the socket is full the queue goes to a writer thread,
/// started on first need, that waits with `poll`; no thread of the Swift concurrency pool ever
/// blocks here.
///
/// Closing: `close()` sends what is queued (giving up after `closeTimeout`), then shuts the socket
/// down, which wakes the reader. The descriptor is closed once the reader and writer threads are
/// done and no flush is under way, so it is never closed under a thread still using it.
final class SocketTransport: FrameTransport {
    private enum WriterThread { case notStarted, running, exited }

    private struct State {
        var queue = OutboundQueue()
        var flushing = false
        var handedToWriter = false
        var writer = WriterThread.notStarted
        var writerShouldExit = false
        var reader: pthread_t?
        var readerExited = false
        var closeRequested = false
        var closeDeadline = ContinuousClock.now
        var isShutDown = false
        var descriptorClosed = false
        var closedWaiters: [CheckedContinuation<Void, Never>] = []

        /// Shut down once everything queued is out (or could not be sent).
        mutating func takeShutdownIfDue() -> Bool {
            guard closeRequested, queue.isEmpty, !isShutDown else { return false }
            isShutDown = true
            return true
        }

        mutating func takeDescriptorCloseIfDue() -> [CheckedContinuation<Void, Never>]? {
            guard !descriptorClosed, readerExited, writer != .running, !flushing else { return nil }
            descriptorClosed = true
            defer { closedWaiters = [] }
            return closedWaiters
        }
    }

    private enum Sent { case all, wouldBlock, failed(Int32) }

    /// Bytes the reader thread queues before it sends them without waiting for the end of its
    /// delivery. Sending everything at the end makes two busy peers take turns, each idle while
    /// the other works through the whole batch; sending every so often lets them overlap.
    static let readerFlushThreshold = 2048

    let fd: Int32
    let executor: ReaderExecutor
    private let closeTimeout: Duration
    private let state = Mutex(State())
    private let writerWake = DispatchSemaphore(value: 0)

    init(fd: Int32, closeTimeout: Duration, runsTasksOnReaderThread: Bool) {
        self.fd = fd
        executor = ReaderExecutor(enabled: runsTasksOnReaderThread)
        self.closeTimeout = closeTimeout
    }

    // MARK: FrameTransport

    func write(_ bytes: [UInt8]) {
        enqueue { $0.append(bytes) }
    }

    func write(_ head: [UInt8], followedBy payload: [UInt8]) {
        enqueue { queue in
            queue.append(head)
            queue.append(payload)
        }
    }

    func write(frameOfLength length: Int, _ encode: (inout [UInt8]) -> Void) {
        enqueue { $0.append(length: length, encode) }
    }

    func write(_ head: [UInt8], followedBy payloads: [[UInt8]]) {
        enqueue { queue in
            queue.append(head)
            for payload in payloads { queue.append(payload) }
        }
    }

    func close() {
        let flush = state.withLock { state -> Bool in
            guard !state.closeRequested else { return false }
            state.closeRequested = true
            state.closeDeadline = .now + closeTimeout
            guard !state.flushing else { return false }
            state.flushing = true
            return true
        }
        if flush { flushWithoutBlocking() }
    }

    // MARK: Reader side

    /// Reads until end of file or error, feeding `connection`; then releases the reader's hold
    /// on the descriptor. Runs on the connection's reader thread.
    func runReader(for connection: MessengerConnection) {
        state.withLock { $0.reader = pthread_self() }
        executor.attachReaderThread()
        while true {
            if executor.isEnabled {
                // Jobs first: they may queue frames (sent just below) and await their replies.
                executor.runPending()
                flushDeferred()
                guard executor.willBlock() else { continue }
            }
            var failure = 0
            let count = connection.receive(readingWith: { buffer in
                let count = Syscalls.read(fd, into: buffer)
                if executor.isEnabled { executor.didUnblock() }
                if count < 0 { failure = -count }
                return max(count, 0)
            })
            flushDeferred()
            if count == 0 {
                let error = failure == 0 ? nil
                    : MessengerError(.transport, "reading the socket failed: \(Syscalls.errorText(Int32(failure)))")
                connection.receiveEnd(error: error)
                break
            }
        }
        executor.finish()
        let (shutDown, closeNow) = state.withLock { state in
            state.readerExited = true
            state.writerShouldExit = true
            let shutDown = !state.isShutDown
            state.isShutDown = true
            state.queue = OutboundQueue()
            return (shutDown, state.takeDescriptorCloseIfDue())
        }
        if shutDown { _ = shutdown(fd, Int32(SHUT_RDWR)) }
        writerWake.signal()
        if let closeNow { closeDescriptor(closeNow) }
    }

    /// Resumes once the descriptor has been closed.
    func waitUntilClosed() async {
        await withCheckedContinuation { continuation in
            let closed = state.withLock { state -> Bool in
                if state.descriptorClosed { return true }
                state.closedWaiters.append(continuation)
                return false
            }
            if closed { continuation.resume() }
        }
    }

    // MARK: Writing

    private func enqueue(_ add: (inout OutboundQueue) -> Void) {
        let me = pthread_self()
        let flush = state.withLock { state -> Bool in
            guard !state.closeRequested, !state.isShutDown else { return false }
            add(&state.queue)
            if state.flushing { return false }
            // The reader sends what it queued once its delivery is done, or once it has queued
            // enough that the peer can start on it while the reader goes on.
            if let reader = state.reader, pthread_equal(reader, me) != 0,
               state.queue.byteCount < Self.readerFlushThreshold { return false }
            state.flushing = true
            return true
        }
        if flush { flushWithoutBlocking() }
    }

    private func flushDeferred() {
        let flush = state.withLock { state -> Bool in
            guard !state.flushing, !state.queue.isEmpty else { return false }
            state.flushing = true
            return true
        }
        if flush { flushWithoutBlocking() }
    }

    /// Sends until the queue is empty, or hands it to the writer thread when the socket is full.
    /// Called by the thread holding the flush role.
    private func flushWithoutBlocking() {
        while true {
            // Seeing the queue empty and giving up the flush role happen under one lock: a writer
            // that queues in between would otherwise see `flushing` still set and leave its bytes
            // for nobody to send.
            let next = state.withLock { state -> FlushStep in
                guard state.queue.isEmpty else { return .send(state.queue.takeAll()) }
                state.flushing = false
                return .released(shutDown: state.takeShutdownIfDue(), closeNow: state.takeDescriptorCloseIfDue())
            }
            guard case .send(var batch) = next else {
                finishReleasedFlush(next)
                return
            }
            switch send(&batch, blocking: false) {
            case .all:
                continue
            case .wouldBlock:
                handToWriter(batch)
                return
            case .failed:
                abandonWriting()
                return
            }
        }
    }

    private func handToWriter(_ unsent: OutboundQueue) {
        let start = state.withLock { state -> Bool in
            state.queue.prepend(unsent)
            state.handedToWriter = true
            guard state.writer == .notStarted else { return false }
            state.writer = .running
            return true
        }
        if start {
            DetachedThread.start(name: "cb writer \(fd)") { [self] in runWriter() }
        }
        writerWake.signal()
    }

    private func runWriter() {
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
    private func flushBlocking() {
        while true {
            let next = state.withLock { state -> FlushStep in
                guard state.queue.isEmpty else { return .send(state.queue.takeAll()) }
                state.handedToWriter = false
                state.flushing = false
                return .released(shutDown: state.takeShutdownIfDue(), closeNow: state.takeDescriptorCloseIfDue())
            }
            guard case .send(var batch) = next else {
                finishReleasedFlush(next)
                return
            }
            switch send(&batch, blocking: true) {
            case .all:
                continue
            case .wouldBlock, .failed:
                abandonWriting()
                state.withLock { $0.handedToWriter = false }
                writerWake.signal()   // let the loop notice an exit request
                return
            }
        }
    }

    /// Sends `batch`; `.wouldBlock` from a blocking send means the close deadline passed.
    private func send(_ batch: inout OutboundQueue, blocking: Bool) -> Sent {
        while !batch.isEmpty {
            let sent = Syscalls.sendNow(fd, batch.chunks[...], firstOffset: batch.firstOffset)
            if sent >= 0 {
                batch.consume(sent)
                continue
            }
            let code = Int32(-sent)
            guard code == EAGAIN || code == EWOULDBLOCK else { return .failed(code) }
            guard blocking else { return .wouldBlock }
            while !Syscalls.waitWritable(fd, milliseconds: 100) {
                let expired = state.withLock { $0.closeRequested && ContinuousClock.now >= $0.closeDeadline }
                if expired { return .wouldBlock }
            }
        }
        return .all
    }

    private enum FlushStep {
        case send(OutboundQueue)
        case released(shutDown: Bool, closeNow: [CheckedContinuation<Void, Never>]?)
    }

    /// After the flush role was given up: shut down or close if that was due at that moment.
    private func finishReleasedFlush(_ step: FlushStep) {
        guard case .released(let shutDown, let closeNow) = step else { return }
        if shutDown { _ = shutdown(fd, Int32(SHUT_RDWR)) }
        if let closeNow { closeDescriptor(closeNow) }
    }

    /// The socket cannot take bytes any more (peer gone, or the close deadline passed): drop what
    /// is queued and shut down, which ends the reader and so the session.
    private func abandonWriting() {
        let (shutDown, closeNow) = state.withLock { state in
            state.queue = OutboundQueue()
            state.flushing = false
            let shutDown = !state.isShutDown
            state.isShutDown = true
            return (shutDown, state.takeDescriptorCloseIfDue())
        }
        if shutDown { _ = shutdown(fd, Int32(SHUT_RDWR)) }
        if let closeNow { closeDescriptor(closeNow) }
    }

    private func closeDescriptor(_ waiters: [CheckedContinuation<Void, Never>]) {
        Syscalls.closeDescriptor(fd)
        for waiter in waiters { waiter.resume() }
    }
}

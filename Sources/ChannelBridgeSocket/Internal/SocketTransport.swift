import ChannelBridgeMessenger
import ChannelBridgePlatform
import Dispatch
import FoundationEssentials

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
/// Flow control (wire protocol §4.10): the unsent bytes, and among them the answer bytes, are
/// counted as they are queued and sent, and kept in `outboundFlow`'s flags with the high- and
/// low-water marks. When the messenger holds input back (too many handlers running, or answers
/// piling up unsent) the reader stops reading and waits in `poll` on the socket (for a hang-up,
/// or for replies to pass through) and on an eventfd that a finished handler or a drained queue
/// signals. A write that fails (the peer is gone) ends the session at once, so frames read but
/// not yet delivered never start.
///
/// Frame deadline (wire protocol §4.10, rule 9): while part of a frame is buffered, the reader
/// waits for the rest in `poll` for at most the time the frame has left (`+FrameDeadline`).
///
/// Closing: `close()` sends what is queued (giving up after `closeTimeout`), then shuts the socket
/// down, which wakes the reader. The descriptor is closed once the reader and writer threads are
/// done and no flush is under way, so it is never closed under a thread still using it.
final class SocketTransport: FlowControlledTransport {
    enum WriterThread { case notStarted, running, exited }

    struct State {
        var queue = OutboundQueue()
        /// Unsent bytes, counting a batch being sent outside the lock, and the answer bytes among them.
        var unsent = 0
        var unsentAnswers = 0
        var overHighWater = false
        var answersOverHighWater = false
        var flushing = false
        var handedToWriter = false
        var writer = WriterThread.notStarted
        var writerShouldExit = false
        var reader: UInt?
        /// The session, while the reader runs: told at once when writing fails.
        var connection: MessengerConnection?
        var readerExited = false
        var closeRequested = false
        var closeDeadline = ContinuousClock.now
        var isShutDown = false
        var descriptorClosed = false
        var closedWaiters: [CheckedContinuation<Void, Never>] = []
        /// Lets other threads wake a reader that waits in `poll` while input is held; made on first need.
        var wakeFD: Int32 = -1
        var wakePending = false
        var onDescriptorClosed: (@Sendable () -> Void)?

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

        /// Counts `sent` bytes (`answers` of them answer bytes) as gone; says which marks were crossed.
        mutating func account(sent: Int, answers: Int, lowWater: Int) -> Crossings {
            guard sent > 0 else { return Crossings() }
            // A batch still being sent when everything was dropped comes back here: stay at 0.
            unsent = max(0, unsent - sent)
            unsentAnswers = max(0, unsentAnswers - answers)
            var crossed = Crossings()
            if overHighWater, unsent <= lowWater {
                overHighWater = false
                crossed.writable = true
            }
            if answersOverHighWater, unsentAnswers <= lowWater {
                answersOverHighWater = false
                crossed.answersDrained = true
            }
            return crossed
        }

        /// Everything unsent was dropped.
        mutating func dropAll() -> Crossings {
            queue = OutboundQueue()
            return account(sent: unsent, answers: unsentAnswers, lowWater: Int.max)
        }
    }

    /// Flow-control marks crossed downwards, acted on after unlocking.
    struct Crossings {
        var writable = false
        var answersDrained = false
    }

    enum Sent { case all, wouldBlock, failed(Int32) }

    /// Bytes the reader thread queues before it sends them without waiting for the end of its
    /// delivery. Sending everything at the end makes two busy peers take turns, each idle while
    /// the other works through the whole batch; sending every so often lets them overlap.
    static let readerFlushThreshold = 2048

    let fd: Int32
    let executor: ReaderExecutor
    let outboundFlow: OutboundFlow
    /// `outboundFlow`'s marks, kept here so that queueing a frame touches no other object.
    let highWater: Int
    let lowWater: Int
    let closeTimeout: Duration
    /// Lock order: innermost. Under it only this transport's own state, `OutboundFlow`'s atomics and
    /// non-blocking eventfd calls; the messenger calls in (write, close, inputMayResume) holding
    /// none of its locks, and this transport calls the messenger (receive, receiveEnd,
    /// resumeHeldInput, inputDemand) only after unlocking.
    let state = LockedValue(State())
    /// The batch being sent: the queue's frames, swapped out of `state.queue` under the lock and
    /// sent outside it. Invariant: touched only by the thread holding the flush role
    /// (`state.flushing`, which one thread at a time sets), so it needs no lock of its own.
    @exclusivity(unchecked) nonisolated(unsafe) var outgoing = OutboundQueue()
    /// What only the reader thread touches (`SocketReaderState`), claimed by it in `runReader`.
    @exclusivity(unchecked) nonisolated(unsafe) var reader = ThreadConfined(SocketReaderState())
    /// `Options.frameTimeout` in seconds (nil: no frame deadline) and `frameMinimumRate`.
    let frameTimeout: Double?
    let frameMinimumRate: Double
    let writerWake = DispatchSemaphore(value: 0)
    let startThread: ThreadStarter

    init(fd: Int32, options: SocketConnection.Options, startThread: @escaping ThreadStarter = DetachedThread.tryStart) {
        self.fd = fd
        // A tuning, not a requirement: a refusal leaves the system's default.
        if let size = options.socketSendBufferSize { _ = Syscalls.setSendBufferSize(fd, size) }
        executor = ReaderExecutor(enabled: options.runsTasksOnReaderThread)
        closeTimeout = options.closeTimeout
        frameTimeout = options.frameTimeout.map {
            Double($0.components.seconds) + Double($0.components.attoseconds) / 1e18
        }
        frameMinimumRate = Double(max(1, options.frameMinimumRate))
        outboundFlow = OutboundFlow(highWater: options.outboundHighWater, lowWater: options.outboundLowWater)
        highWater = outboundFlow.highWater
        lowWater = outboundFlow.lowWater
        self.startThread = startThread
    }

    deinit {
        // The last reference is gone, so no other thread can touch the reader's state any more.
        reader.claim()
        reader.withValue { $0.frameScratch?.deallocate() }
    }

    /// Runs once the descriptor has been closed (the listener counts its connections with it).
    func onDescriptorClosed(_ callback: @escaping @Sendable () -> Void) {
        state.withLock { $0.onDescriptorClosed = callback }
    }

    // MARK: FrameTransport

    func write(
        frameOfLength length: Int, followedBy payloads: [[UInt8]], flush: Bool,
        _ encode: (UnsafeMutableRawBufferPointer) -> Void
    ) {
        if !payloads.isEmpty {
            write(frameOfLength: length, encode, payloads: payloads)
        } else if flush {
            writeFlushing(frameOfLength: length, encode)
        } else {
            write(frameOfLength: length, encode)
        }
    }

    // Three functions, so that each has its own copy of the inlined `enqueue`, its flags constant.

    private func write(frameOfLength length: Int, _ encode: (UnsafeMutableRawBufferPointer) -> Void) {
        enqueue(directFrame: length, encode) { $0.append(frameOfLength: length, encode) }
    }

    private func writeFlushing(frameOfLength length: Int, _ encode: (UnsafeMutableRawBufferPointer) -> Void) {
        enqueue(sendingNowOnReader: true, directFrame: length, encode) { $0.append(frameOfLength: length, encode) }
    }

    @inline(never)
    private func write(
        frameOfLength length: Int, _ encode: (UnsafeMutableRawBufferPointer) -> Void, payloads: [[UInt8]]
    ) {
        enqueue { queue in
            let isAnswer = queue.append(frameOfLength: length, encode)
            for payload in payloads { queue.append(payload, isAnswer: isAnswer) }
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
        // Nobody may wait to write into a connection that is closing.
        outboundFlow.close()
        if flush { flushWithoutBlocking() }
    }

    func inputMayResume() {
        state.withLock { state in
            guard state.wakeFD >= 0, !state.wakePending else { return }
            state.wakePending = true
            Syscalls.signalEvent(state.wakeFD)
        }
    }

    // MARK: Reader side

    /// Reads until end of file or error, feeding `connection`; then releases the reader's hold
    /// on the descriptor. Runs on the connection's reader thread.
    func runReader(for connection: MessengerConnection) {
        reader.claim()
        state.withLock { state in
            state.reader = ThreadIdentity.current
            state.connection = connection
        }
        executor.attachReaderThread()
        reading: while true {
            if executor.isEnabled {
                // Jobs first: they may queue frames (sent just below) and await their replies.
                executor.runPending()
                flushDeferred()
                // A job that drove the reader met the end of the socket (`driveReader`).
                if reader.withValue({ $0.sawEnd }) { break reading }
                guard executor.willBlock() else { continue }
            }
            // Matched, not compared: `!=` on the enum went through `Equatable`'s generic witness.
            if case .read = connection.inputDemand {
                // Part of a frame is buffered: wait for the rest under its deadline.
                if timesFrame(of: connection) { awaitRestOfFrame(connection) }
            } else {
                switch waitWhileHeld(connection) {
                case .readable:
                    break
                case .woken:
                    if executor.isEnabled { executor.didUnblock() }
                    connection.resumeHeldInput()
                    flushDeferred()
                    continue reading
                case .hungUp:
                    if executor.isEnabled { executor.didUnblock() }
                    // The peer is gone: what it sent and this side has not started never starts.
                    connection.receiveEnd(
                        error: MessengerError(
                            .connectionClosed, "the peer closed the connection; the requests it had queued were dropped"
                        ))
                    break reading
                }
            }
            guard readAndDeliver(connection) else { break }
        }
        executor.finish()
        // Nothing is delivered after this: the reader thread was the only one that delivered.
        connection.deliveriesEnded()
        let (shutDown, closeNow, crossed) = state.withLock { state in
            state.readerExited = true
            state.writerShouldExit = true
            state.connection = nil
            let shutDown = !state.isShutDown
            state.isShutDown = true
            let crossed = state.dropAll()
            return (shutDown, state.takeDescriptorCloseIfDue(), crossed)
        }
        if shutDown { Syscalls.shutdown(fd) }
        writerWake.signal()
        outboundFlow.close()
        act(on: crossed)
        if let closeNow { closeDescriptor(closeNow) }
    }

    /// One (blocking) read into the connection's buffer, the delivery of the frames it completed,
    /// and the sending of what the delivery left queued. False once the socket is at its end or
    /// failed; the connection has then been told. Reader thread only.
    @inline(__always)
    func readAndDeliver(_ connection: MessengerConnection) -> Bool {
        var failure = 0
        let count = connection.receive(readingWith: { buffer in
            let count = Syscalls.read(fd, into: buffer)
            if executor.isEnabled { executor.didUnblock() }
            if count < 0 { failure = -count }
            return max(count, 0)
        })
        flushDeferred()
        guard count == 0 else { return true }
        let error =
            failure == 0
            ? nil
            : MessengerError(.transport, "reading the socket failed: \(Syscalls.errorText(Int32(failure)))")
        connection.receiveEnd(error: error)
        return false
    }

    private enum HeldWait { case readable, woken, hungUp }

    /// Waits while the messenger holds input: for the wake event, for a hang-up, and (with
    /// `.readOrWait`) for bytes to read, which the messenger delivers as far as its rules allow.
    private func waitWhileHeld(_ connection: MessengerConnection) -> HeldWait {
        guard let wake = wakeDescriptor() else {
            // No eventfd (out of descriptors): look again every few milliseconds instead.
            let demand = connection.inputDemand
            if demand == .resume { return .woken }
            let result = Syscalls.poll(fd, forInput: demand == .readOrWait, milliseconds: 5)
            if result.hungUp { return .hungUp }
            return result.readable ? .readable : .woken
        }
        // Asked again now that the eventfd exists: whatever lifts the hold from here on signals it.
        let demand = connection.inputDemand
        switch demand {
        case .read: return .readable
        case .resume: return .woken
        case .readOrWait, .wait: break
        }
        guard let (socket, woken) = Syscalls.poll(fd, forInput: demand == .readOrWait, orReadable: wake) else {
            return .hungUp
        }
        // POLLHUP on a Unix stream socket means the peer has closed its end completely.
        if socket.hungUpOrInvalid { return .hungUp }
        if woken.readable {
            state.withLock { state in
                Syscalls.drainEvent(state.wakeFD)
                state.wakePending = false
            }
            return .woken
        }
        return .readable
    }

    /// The wake eventfd, made on first need; nil if none can be made.
    func wakeDescriptor() -> Int32? {
        let fd = state.withLock { state -> Int32 in
            if state.wakeFD < 0 { state.wakeFD = Syscalls.newEvent() }
            return state.wakeFD
        }
        return fd >= 0 ? fd : nil
    }

    /// Unsent bytes and unsent answer bytes now (for tests).
    var unsentByteCounts: (all: Int, answers: Int) {
        state.withLock { ($0.unsent, $0.unsentAnswers) }
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

}

/// Starts a named detached thread; returns 0, or the error `pthread_create` reported.
typealias ThreadStarter = @Sendable (String, @escaping @Sendable () -> Void) -> Int32

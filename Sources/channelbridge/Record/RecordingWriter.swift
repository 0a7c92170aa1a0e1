import ChannelBridgeMessenger
import ChannelBridgePlatform

/// The one thread that turns what the proxy passed on into the transcript: the proxy's pumps only
/// copy the bytes they passed on into a bounded queue and go on; this thread splits them into
/// frames, hands the frames to their session's tap (which decodes and formats them), and writes the
/// transcript's new lines with one write per batch.
///
/// Bound: at most `maxQueuedBytes` of passed-on bytes wait in the queue (a chunk arriving at an
/// empty queue is always taken, so one chunk of any size fits). A pump whose chunk does not fit
/// waits until this thread has taken the queue: the proxy slows down to the speed at which the
/// transcript is written (backpressure); nothing is dropped and memory does not grow. The batch
/// being written is held besides, so at most twice the bound is held in all.
///
/// Batches: woken by the first bytes queued while it waits, the thread lets the queue fill for
/// `gatherMilliseconds` (less once `eagerBytes` are queued, a session ends or recording finishes),
/// then takes it all, formats it and writes it with one write. So the pumps wake it about once a
/// batch, not once a frame (on this kind of machine a wake-up costs more than formatting the
/// call), and a line reaches the file within about `gatherMilliseconds` of its bytes passing;
/// a proxy killed with SIGKILL loses what it had queued and not yet written.
final class RecordingWriter: Sendable {
    static let maxQueuedBytes = 4 << 20
    /// Queued bytes past which the writer stops gathering and takes the queue at once.
    static let eagerBytes = 256 << 10
    static let gatherMilliseconds: Int32 = 1

    private enum Item {
        /// Bytes a pump passed on, in the order in which they passed.
        case bytes(SessionTap, fromClient: Bool, [UInt8])
        /// Both pumps of the tap's session have ended.
        case ended(SessionTap)
    }

    private struct State {
        var items: [Item] = []
        var queuedBytes = 0
        /// The writer thread waits for `wakeEvent` with nothing queued: the next item signals it.
        var writerIdle = false
        /// Pumps waiting on `space` for the queue to be taken.
        var pumpsWaiting = 0
        /// Set by `finish`: the writer takes what is queued, writes it and the end, and calls it.
        var onFinished: (@Sendable () -> Void)?
        /// Nothing more is queued.
        var finished = false
    }

    /// What `enqueue` found.
    private enum Admission {
        case queued(wakeWriter: Bool)
        case full
        case refused
    }

    private let file: TranscriptFile
    private let state = LockedValue(State())
    /// An eventfd the writer waits on, with a timeout while it gathers a batch.
    private let wakeEvent: Int32
    private let space = TimedSemaphore()

    /// Starts the writer thread; fails when no thread or eventfd can be had.
    init(file: TranscriptFile) throws {
        self.file = file
        wakeEvent = Syscalls.newEvent()
        guard wakeEvent >= 0 else {
            throw CommandFailure(ExitCode.unavailable, "cannot make the transcript writer's eventfd")
        }
        let started = DetachedThread.tryStart(name: "cb record write") { [self] in run() }
        guard started == 0 else {
            Syscalls.closeDescriptor(wakeEvent)
            throw CommandFailure(
                ExitCode.unavailable, "cannot start the transcript's writer: \(DetachedThread.describe(started))")
        }
    }

    // Closed only when no pump can signal it any more: a pump told to wake the writer may do so
    // after the writer has finished.
    deinit {
        Syscalls.closeDescriptor(wakeEvent)
    }

    /// Queues bytes a pump has passed on (or is about to), waiting while the queue is full. Bytes
    /// arriving once recording has finished are not recorded. Returns true when the writer thread
    /// must be woken: the pump then calls `wakeWriter()` once it has passed the bytes on, so that
    /// waking it costs the client nothing.
    func enqueue(_ bytes: UnsafeRawBufferPointer, fromClient: Bool, for tap: SessionTap) -> Bool {
        let chunk = [UInt8](bytes)
        while true {
            let admission = state.withLock { state -> Admission in
                if state.finished { return .refused }
                if state.queuedBytes > 0, state.queuedBytes + chunk.count > Self.maxQueuedBytes {
                    state.pumpsWaiting += 1
                    state.writerIdle = false
                    return .full
                }
                let before = state.queuedBytes
                state.items.append(.bytes(tap, fromClient: fromClient, chunk))
                state.queuedBytes += chunk.count
                let wakeWriter =
                    state.writerIdle || (before < Self.eagerBytes && state.queuedBytes >= Self.eagerBytes)
                state.writerIdle = false
                return .queued(wakeWriter: wakeWriter)
            }
            switch admission {
            case .queued(let wakeWriter):
                return wakeWriter
            case .full:
                // Signalled even when the writer did not look idle: a wake another pump owes may
                // wait behind that pump's send, which may wait for this one. A signal too many
                // only ends one wait of the writer early.
                wakeWriter()
                space.wait()
            case .refused:
                return false
            }
        }
    }

    /// Wakes the writer thread, when `enqueue` said so.
    func wakeWriter() {
        Syscalls.signalEvent(wakeEvent)
    }

    /// Both pumps of `tap`'s session have ended: once the bytes queued before are written, the
    /// tap writes what it still holds.
    func ended(_ tap: SessionTap) {
        let queued = state.withLock { state -> Bool in
            if state.finished { return false }
            state.items.append(.ended(tap))
            state.writerIdle = false
            return true
        }
        if queued { wakeWriter() }
    }

    /// Writes everything queued, then the end of the transcript; returns once the file is complete.
    /// Bytes queued after this are not recorded.
    func finish() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            state.withLock { state in
                state.onFinished = { continuation.resume() }
                state.writerIdle = false
            }
            wakeWriter()
        }
    }

    /// What the writer thread does next.
    private enum Turn {
        /// Nothing is queued: wait until something is.
        case wait
        /// Something is queued: let more come, for up to `gatherMilliseconds`.
        case gather
        /// Format and write the batch taken.
        case batch(releasePumps: Int)
        /// Format and write the last batch, then the end of the transcript.
        case finish(releasePumps: Int, then: @Sendable () -> Void)
    }

    /// The writer thread: gathers the queue, formats it, writes it, until `finish`.
    private func run() {
        var decoders: [ObjectIdentifier: SessionDecoders] = [:]
        // The queue's array and this one trade places at every batch, so neither is reallocated.
        var batch: [Item] = []
        var gathered = false
        while true {
            let turn = state.withLock { state -> Turn in
                let finishing = state.onFinished
                if finishing == nil {
                    if state.items.isEmpty {
                        state.writerIdle = true
                        return .wait
                    }
                    let ending = state.items.last.map { if case .ended = $0 { true } else { false } } ?? false
                    if !gathered, state.queuedBytes < Self.eagerBytes, !ending {
                        return .gather
                    }
                }
                swap(&state.items, &batch)
                state.queuedBytes = 0
                defer { state.pumpsWaiting = 0 }
                guard let finishing else { return .batch(releasePumps: state.pumpsWaiting) }
                // What is queued now is the last batch: a session still running past the end
                // (stuck in a write) cannot keep the transcript open.
                state.finished = true
                state.onFinished = nil
                return .finish(releasePumps: state.pumpsWaiting, then: finishing)
            }
            switch turn {
            case .wait:
                _ = Syscalls.poll(wakeEvent, forInput: true, milliseconds: -1)
                Syscalls.drainEvent(wakeEvent)
            case .gather:
                gathered = true
                _ = Syscalls.poll(wakeEvent, forInput: true, milliseconds: Self.gatherMilliseconds)
                Syscalls.drainEvent(wakeEvent)
            case .batch(let releasePumps):
                gathered = false
                for _ in 0..<releasePumps { space.post() }
                for item in batch { take(item, &decoders) }
                batch.removeAll(keepingCapacity: true)
                file.flush()
            case .finish(let releasePumps, let onFinished):
                for _ in 0..<releasePumps { space.post() }
                for item in batch { take(item, &decoders) }
                file.finish()
                onFinished()
                return
            }
        }
    }

    /// The frame decoders of a session's two directions; nil once that direction's bytes were not
    /// frames (they are passed on as they are, no longer recorded).
    private struct SessionDecoders {
        var client: FrameDecoder? = FrameDecoder(maxFrameLength: Int(UInt32.max))
        var host: FrameDecoder? = FrameDecoder(maxFrameLength: Int(UInt32.max))
    }

    private func take(_ item: Item, _ decoders: inout [ObjectIdentifier: SessionDecoders]) {
        switch item {
        case .bytes(let tap, let fromClient, let bytes):
            let id = ObjectIdentifier(tap)
            var pair = decoders.removeValue(forKey: id) ?? SessionDecoders()
            if fromClient {
                Self.split(bytes, &pair.client) { tap.fromClient($0) }
            } else {
                Self.split(bytes, &pair.host) { tap.fromHost($0) }
            }
            decoders[id] = pair
        case .ended(let tap):
            decoders.removeValue(forKey: ObjectIdentifier(tap))
            tap.end()
        }
    }

    private static func split(_ bytes: [UInt8], _ decoder: inout FrameDecoder?, _ body: (Frame) -> Void) {
        guard decoder != nil else { return }
        decoder!.append(bytes)
        do {
            while let frame = try decoder!.next() { body(frame) }
        } catch {
            decoder = nil
        }
    }
}

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
/// Flushing: the lines of a batch are written once the batch is formatted, that is as soon as the
/// queue went empty; a proxy killed with SIGKILL loses the lines of the batch it was formatting.
final class RecordingWriter: Sendable {
    static let maxQueuedBytes = 4 << 20

    private enum Item {
        /// Bytes a pump passed on, in the order in which they passed.
        case bytes(SessionTap, fromClient: Bool, [UInt8])
        /// Both pumps of the tap's session have ended.
        case ended(SessionTap)
    }

    private struct State {
        var items: [Item] = []
        var queuedBytes = 0
        /// The writer thread waits on `wake`: the next item posts it.
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
    private let wake = TimedSemaphore()
    private let space = TimedSemaphore()

    /// Starts the writer thread; fails when no thread can be started.
    init(file: TranscriptFile) throws {
        self.file = file
        let started = DetachedThread.tryStart(name: "cb record write") { [self] in run() }
        guard started == 0 else {
            throw CommandFailure(
                ExitCode.unavailable, "cannot start the transcript's writer thread: \(DetachedThread.describe(started))"
            )
        }
    }

    /// Queues bytes a pump has passed on (or is about to), waiting while the queue is full. Bytes
    /// arriving once recording has finished are not recorded. Returns true when the writer thread
    /// waits for work: the pump then calls `wakeWriter()` once it has passed the bytes on, so that
    /// waking it costs the client nothing.
    func enqueue(_ bytes: UnsafeRawBufferPointer, fromClient: Bool, for tap: SessionTap) -> Bool {
        let chunk = [UInt8](bytes)
        while true {
            let admission = state.withLock { state -> Admission in
                if state.finished { return .refused }
                let wakeWriter = state.writerIdle
                state.writerIdle = false
                if state.queuedBytes > 0, state.queuedBytes + chunk.count > Self.maxQueuedBytes {
                    state.pumpsWaiting += 1
                    return .full
                }
                state.items.append(.bytes(tap, fromClient: fromClient, chunk))
                state.queuedBytes += chunk.count
                return .queued(wakeWriter: wakeWriter)
            }
            switch admission {
            case .queued(let wakeWriter):
                return wakeWriter
            case .full:
                // Posted even when the writer did not look idle: a wake another pump owes may
                // wait behind that pump's send, which may wait for this one. A post too many
                // costs the writer one look at the queue.
                wake.post()
                space.wait()
            case .refused:
                return false
            }
        }
    }

    /// Wakes the writer thread, when `enqueue` said it waits.
    func wakeWriter() {
        wake.post()
    }

    /// Both pumps of `tap`'s session have ended: once the bytes queued before are written, the
    /// tap writes what it still holds.
    func ended(_ tap: SessionTap) {
        let wakeWriter = state.withLock { state -> Bool in
            if state.finished { return false }
            state.items.append(.ended(tap))
            defer { state.writerIdle = false }
            return state.writerIdle
        }
        if wakeWriter { wake.post() }
    }

    /// Writes everything queued, then the end of the transcript; returns once the file is complete.
    /// Bytes queued after this are not recorded.
    func finish() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let wakeWriter = state.withLock { state -> Bool in
                state.onFinished = { continuation.resume() }
                defer { state.writerIdle = false }
                return state.writerIdle
            }
            if wakeWriter { wake.post() }
        }
    }

    /// What the writer thread does next: format and write the batch it took, then wait for more
    /// or end the transcript.
    private enum Turn {
        case batch(releasePumps: Int)
        case wait
        case finish(releasePumps: Int, then: @Sendable () -> Void)
    }

    /// The writer thread: takes the whole queue, formats it, writes it, until `finish`.
    private func run() {
        var decoders: [ObjectIdentifier: SessionDecoders] = [:]
        // The queue's array and this one trade places at every batch, so neither is reallocated.
        var batch: [Item] = []
        while true {
            let turn = state.withLock { state -> Turn in
                let finishing = state.onFinished
                if state.items.isEmpty, finishing == nil {
                    state.writerIdle = true
                    return .wait
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
                wake.wait()
            case .batch(let releasePumps):
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

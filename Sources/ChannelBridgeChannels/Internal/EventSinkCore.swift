import ChannelBridgeCodec
import ChannelBridgeMessenger
import ChannelBridgePlatform

/// The state behind an `EventSink`: holds events back until the `listen` reply is out, then
/// posts them in order, and keeps the stream within its buffer while the listener is behind
/// (wire protocol §4.10).
///
/// An event is posted at once while the connection is writable and nothing waits before it.
/// Otherwise it waits here, in order; an event sent with a coalescing key replaces the one with
/// the same key still waiting. When the connection drains to its low-water mark the waiting events
/// go out. When more than `maxBufferedBytes` wait, the stream ends for overflow: the listener gets
/// an error event `STREAM_OVERFLOW` naming the channel, then the end of stream, and the owner's
/// `onCancel` runs. A producer that uses `send` waits for room instead and never overflows.
final class EventSinkCore: Sendable {
    private enum Phase {
        /// The `listen` reply is not out yet; events wait.
        case holding
        /// One thread is posting the waiting events; new ones wait behind them.
        case draining
        /// Events wait until the connection is writable again.
        case blocked
        /// Nothing waits: events are posted as they come while the connection is writable.
        case open
        /// Cancelled, replaced or overflowed; nothing more is sent.
        case closed
    }

    private struct Waiting {
        var key: String?
        var payload: [UInt8]?
    }

    private struct State {
        var phase = Phase.holding
        /// `queue[head...]` wait; a slot emptied by coalescing is nil.
        var queue: [Waiting?] = []
        var head = 0
        /// Absolute index in `queue` of the waiting event for each coalescing key.
        /// Keys are told apart by code units, as preference keys are (no Unicode normalization).
        var keyed: [CodeUnitString: Int] = [:]
        var queuedBytes = 0
        var ended = false
        /// Producers in `send` waiting for the queue to empty.
        var roomWaiters: [UnsafeContinuation<Void, Never>] = []

        var isQueueEmpty: Bool { head == queue.count }

        mutating func takeAll() -> [[UInt8]?] {
            // A nil slot was coalesced away; a nil payload is the end of the stream and is kept.
            let batch = queue[head...].compactMap { $0 }.map(\.payload)
            queue.removeAll(keepingCapacity: true)
            head = 0
            keyed = [:]
            queuedBytes = 0
            return batch
        }
    }

    /// Events that can be waiting, in bytes, when nothing else is said: the connection's default
    /// high-water mark.
    static let defaultMaxBufferedBytes = 4 << 20

    let channel: String
    private let messenger: any BinaryMessenger
    private let codec: any MethodCodec
    private let flow: OutboundFlow?
    private let maxBufferedBytes: Int
    private let overflowed: @Sendable (EventSinkCore) -> Void
    private let state = LockedValue(State())

    init(
        channel: String, messenger: any BinaryMessenger, codec: any MethodCodec,
        maxBufferedBytes: Int = EventSinkCore.defaultMaxBufferedBytes,
        overflowed: @escaping @Sendable (EventSinkCore) -> Void = { _ in }
    ) {
        self.channel = channel
        self.messenger = messenger
        self.codec = codec
        self.flow = messenger.fastPath?.outboundFlow
        self.maxBufferedBytes = max(1, maxBufferedBytes)
        self.overflowed = overflowed
    }

    var isActive: Bool {
        state.withLock { $0.phase != .closed && !$0.ended }
    }

    func send(_ event: StandardValue, coalescingKey key: String? = nil) {
        guard let payload = encode(event) else { return }
        emit(payload, key: key, ending: false)
    }

    func send(_ error: MethodError) {
        guard let payload = try? MethodChannel.encodeError(error, codec: codec) else { return }
        emit(payload, key: nil, ending: false)
    }

    func end() {
        emit(nil, key: nil, ending: true)
    }

    /// Sends `event` once the connection and this stream have room, waiting for it (never
    /// buffering beyond what is already waiting). False when the stream is no longer active.
    func sendWhenReady(_ event: StandardValue) async -> Bool {
        guard let payload = encode(event) else { return isActive }
        while true {
            enum Step { case inactive, sendNow, waitForConnection, waitForQueue }
            let step = state.withLock { state -> Step in
                guard state.phase != .closed, !state.ended else { return .inactive }
                guard state.phase == .open else { return .waitForQueue }
                return flow?.isWritable == false ? .waitForConnection : .sendNow
            }
            switch step {
            case .inactive:
                return false
            case .sendNow:
                post(payload)
                return true
            case .waitForConnection:
                guard let flow, !Task.isCancelled else { return false }
                await flow.waitUntilWritable()
            case .waitForQueue:
                if Task.isCancelled { return false }
                await waitForEmptyQueue()
            }
        }
    }

    private func encode(_ event: StandardValue) -> [UInt8]? {
        do {
            return try codec.encodeSuccessEnvelope(event)
        } catch {
            // A producer bug must still reach the listener rather than vanish.
            send(MethodError(code: "error", message: "Cannot encode event on channel \(channel): \(error)"))
            return nil
        }
    }

    private func emit(_ payload: [UInt8]?, key: String?, ending: Bool) {
        enum Outcome { case dropped, postNow, queued, blocked, overflow(Int) }
        let outcome = state.withLock { state -> Outcome in
            guard state.phase != .closed, !state.ended else { return .dropped }
            if ending { state.ended = true }
            if state.phase == .open {
                if flow?.isWritable != false { return .postNow }
                state.phase = .blocked
                enqueue(payload, key: key, into: &state)
                return .blocked
            }
            enqueue(payload, key: key, into: &state)
            guard state.queuedBytes <= maxBufferedBytes else { return .overflow(state.queuedBytes) }
            return .queued
        }
        switch outcome {
        case .dropped, .queued:
            break
        case .postNow:
            post(payload)
        case .blocked:
            flow?.whenWritable { [self] in resumeDraining() }
        case .overflow(let bytes):
            overflow(bufferedBytes: bytes)
        }
    }

    private func enqueue(_ payload: [UInt8]?, key: String?, into state: inout State) {
        let size = payload?.count ?? 0
        if let key, let index = state.keyed[CodeUnitString(key)], let previous = state.queue[index] {
            // Only the latest event per key waits; it keeps the place of the first.
            state.queuedBytes += size - (previous.payload?.count ?? 0)
            state.queue[index] = Waiting(key: key, payload: payload)
            return
        }
        if let key { state.keyed[CodeUnitString(key)] = state.queue.count }
        state.queue.append(Waiting(key: key, payload: payload))
        state.queuedBytes += size
    }

    /// Called once the `listen` reply is queued: posts what was held back, then goes live.
    func open() {
        let start = state.withLock { state -> Bool in
            guard state.phase == .holding else { return false }
            state.phase = .draining
            return true
        }
        if start { drain() }
    }

    private func resumeDraining() {
        let start = state.withLock { state -> Bool in
            guard state.phase == .blocked else { return false }
            state.phase = .draining
            return true
        }
        if start { drain() }
    }

    /// Posts the waiting events while the connection takes them. Run by the one thread that set
    /// `.draining`.
    private func drain() {
        while true {
            enum Step { case post([[UInt8]?]), blocked, done([UnsafeContinuation<Void, Never>]) }
            let step = state.withLock { state -> Step in
                guard state.phase == .draining else { return .done([]) }
                if state.isQueueEmpty {
                    state.phase = .open
                    defer { state.roomWaiters = [] }
                    return .done(state.roomWaiters)
                }
                if flow?.isWritable == false {
                    state.phase = .blocked
                    return .blocked
                }
                return .post(state.takeAll())
            }
            switch step {
            case .post(let batch):
                for payload in batch { post(payload) }
            case .blocked:
                flow?.whenWritable { [self] in resumeDraining() }
                return
            case .done(let waiters):
                for waiter in waiters { waiter.resume() }
                return
            }
        }
    }

    private func waitForEmptyQueue() async {
        // Safe: resumed exactly once, by drain reaching `.open`, by close, or right here.
        await withUnsafeContinuation { (continuation: UnsafeContinuation<Void, Never>) in
            let now = state.withLock { state -> Bool in
                if state.phase == .open || state.phase == .closed || state.ended { return true }
                state.roomWaiters.append(continuation)
                return false
            }
            if now { continuation.resume() }
        }
    }

    /// Too much waits: end the stream with a typed error event, then the end of stream. What
    /// waits is dropped; events a drainer already took still go out first, and before the `listen`
    /// reply nothing goes out: the error and the end then follow the reply.
    private func overflow(bufferedBytes: Int) {
        let error = MethodError(
            code: EventChannel.overflowErrorCode,
            message: "The listener on channel \(channel) fell behind: \(bufferedBytes) bytes of events waited unsent, "
                + "over the limit of \(maxBufferedBytes); the stream was ended",
            details: [
                "channel": .string(channel), "bufferedBytes": .int64(Int64(bufferedBytes)),
                "limit": .int64(Int64(maxBufferedBytes)),
            ])
        let payload = try? MethodChannel.encodeError(error, codec: codec)
        let (postNow, waiters) = state.withLock { state -> (Bool, [UnsafeContinuation<Void, Never>]) in
            _ = state.takeAll()
            state.ended = true
            defer { state.roomWaiters = [] }
            if state.phase == .holding || state.phase == .draining {
                // Whoever opens or drains the stream sends these, after what went before.
                if let payload { state.queue.append(Waiting(key: nil, payload: payload)) }
                state.queue.append(Waiting(key: nil, payload: nil))
                return (false, state.roomWaiters)
            }
            state.phase = .closed
            return (true, state.roomWaiters)
        }
        for waiter in waiters { waiter.resume() }
        if postNow {
            if let payload { post(payload) }
            post(nil)
        }
        overflowed(self)
    }

    /// Stops the sink; with `endingStream`, first tells the listener the stream is over. What
    /// waits is dropped; the end goes out after the events a drainer already took, and after the
    /// `listen` reply when that is not out yet.
    func close(endingStream: Bool = false) {
        let (postEnd, waiters) = state.withLock { state -> (Bool, [UnsafeContinuation<Void, Never>]) in
            // An end of stream still held back would follow the reply; one sent already is enough.
            let needsEnd = endingStream && !state.ended && state.phase != .closed
            _ = state.takeAll()
            state.ended = true
            defer { state.roomWaiters = [] }
            if needsEnd, state.phase == .holding || state.phase == .draining {
                // Whoever opens or drains the stream sends the end, after what went before: a
                // drainer posts outside the lock, so an end posted here could overtake its batch.
                state.queue.append(Waiting(key: nil, payload: nil))
                return (false, state.roomWaiters)
            }
            state.phase = .closed
            return (needsEnd, state.roomWaiters)
        }
        for waiter in waiters { waiter.resume() }
        if postEnd { post(nil) }
    }

    private func post(_ payload: [UInt8]?) {
        do {
            try messenger.post(onChannel: channel, message: payload)
        } catch let error as MessengerError where error.code == .frameTooLarge {
            // The listener gets an error event instead of an event it would refuse; the stream
            // goes on.
            let tooLarge = MethodError(
                code: EventChannel.eventTooLargeErrorCode,
                message: "An event of \(payload?.count ?? 0) bytes on channel \(channel) is larger than the "
                    + "listener accepts; it was not sent",
                details: ["channel": .string(channel), "size": .int64(Int64(payload?.count ?? 0))])
            if let replacement = try? MethodChannel.encodeError(tooLarge, codec: codec) {
                try? messenger.post(onChannel: channel, message: replacement)
            }
        } catch {
            // The connection has ended; the stream is cancelled through onClose.
        }
    }
}

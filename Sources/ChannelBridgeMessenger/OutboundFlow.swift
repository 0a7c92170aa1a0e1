import ChannelBridgePlatform
import Synchronization

/// A connection's outbound flow-control state, kept by its transport and read by the messenger and
/// the channels above it (wire protocol §4.10).
///
/// The transport counts the bytes it has queued and not yet handed to the socket, and among them
/// the *answer bytes* (REPLY and PONG frames). Two flags follow those counts with hysteresis:
/// - **writable** turns false when the unsent bytes pass `highWater` and true again once they are
///   back at `lowWater` or below. Work this side starts on its own (requests, events) waits while
///   it is false, so a peer that does not read costs a bounded amount;
/// - **answers backlogged** does the same for the answer bytes. While it is set the messenger holds
///   back the peer's requests (it stops reading them), so that a peer that asks without reading
///   the answers is slowed by its own kernel buffer rather than by this process's memory.
///
/// The flags are atomics so that the fast path pays a load, not a lock; the transport changes
/// them under its own lock and then calls `becameWritable()` outside it.
package final class OutboundFlow: Sendable {
    /// Unsent bytes above which the connection stops being writable.
    package let highWater: Int
    /// Unsent bytes at or below which it is writable again.
    package let lowWater: Int

    private let writable = Atomic<Bool>(true)
    private let answersBacklogged = Atomic<Bool>(false)
    private let waiters = LockedValue(Waiters())

    private struct Waiters {
        var next: UInt64 = 0
        var continuations: [UInt64: UnsafeContinuation<Void, Never>] = [:]
        /// Registered while the continuation is not yet known: a cancel that came first.
        var cancelledEarly: Set<UInt64> = []
        var callbacks: [@Sendable () -> Void] = []
        var closed = false
        /// Tests waiting for a state (`waitUntil`), looked at on every change.
        var observers: [(condition: @Sendable (Snapshot) -> Bool, continuation: UnsafeContinuation<Void, Never>)] = []
    }

    /// What `waitUntil` looks at.
    package struct Snapshot: Sendable {
        package var isWritable: Bool
        package var isAnswerBacklogged: Bool
        /// Writers suspended in `waitUntilWritable`.
        package var waitingWriters: Int
        package var isClosed: Bool
    }

    package init(highWater: Int, lowWater: Int) {
        self.highWater = max(1, highWater)
        self.lowWater = max(0, min(lowWater, self.highWater))
    }

    /// False while the unsent bytes are over the high-water mark (until they fall to low water).
    package var isWritable: Bool { writable.load(ordering: .acquiring) }

    /// True while the unsent answer bytes are over the high-water mark (until low water).
    package var isAnswerBacklogged: Bool { answersBacklogged.load(ordering: .acquiring) }

    // MARK: Transport side (called under the transport's lock)

    /// The unsent bytes passed the high-water mark.
    package func markUnwritable() {
        writable.store(false, ordering: .releasing)
    }

    /// The unsent answer bytes passed, or fell back from, the high-water mark.
    package func markAnswerBacklog(_ backlogged: Bool) {
        answersBacklogged.store(backlogged, ordering: .releasing)
    }

    // MARK: Transport side (called after unlocking)

    /// The unsent bytes fell to the low-water mark: resumes everyone waiting to write.
    package func becameWritable() {
        writable.store(true, ordering: .releasing)
        wakeWriters(closing: false)
    }

    /// A flag changed in a way nobody waits for but observers may (called after unlocking).
    package func stateChanged() {
        let observers = waiters.withLock { takeSatisfiedObservers(&$0) }
        for observer in observers { observer.resume() }
    }

    /// Suspends until `condition` holds for the flow's state; it is looked at now and after every
    /// change, under the flow's lock, so it must only read the snapshot. For tests: an event to
    /// wait on instead of polling.
    package func waitUntil(_ condition: @escaping @Sendable (Snapshot) -> Bool) async {
        // Safe: resumed exactly once, here or by the change that satisfies `condition`.
        await withUnsafeContinuation { (continuation: UnsafeContinuation<Void, Never>) in
            let now = waiters.withLock { waiters -> Bool in
                if condition(snapshot(waiters)) { return true }
                waiters.observers.append((condition, continuation))
                return false
            }
            if now { continuation.resume() }
        }
    }

    private func snapshot(_ waiters: Waiters) -> Snapshot {
        Snapshot(
            isWritable: writable.load(ordering: .acquiring),
            isAnswerBacklogged: answersBacklogged.load(ordering: .acquiring),
            waitingWriters: waiters.continuations.count, isClosed: waiters.closed)
    }

    private func takeSatisfiedObservers(_ waiters: inout Waiters) -> [UnsafeContinuation<Void, Never>] {
        guard !waiters.observers.isEmpty else { return [] }
        let state = snapshot(waiters)
        var satisfied: [UnsafeContinuation<Void, Never>] = []
        waiters.observers.removeAll { observer in
            guard state.isClosed || observer.condition(state) else { return false }
            satisfied.append(observer.continuation)
            return true
        }
        return satisfied
    }

    /// The connection ended: nobody waits any more, and writes are dropped by the transport.
    package func close() {
        writable.store(true, ordering: .releasing)
        answersBacklogged.store(false, ordering: .releasing)
        wakeWriters(closing: true)
    }

    /// Resumes every writer waiting (and the observers now satisfied), after unlocking; `closing`
    /// marks the flow closed under the same lock.
    private func wakeWriters(closing: Bool) {
        let (continuations, callbacks, observers) = waiters.withLock { waiters in
            if closing { waiters.closed = true }
            defer {
                waiters.continuations = [:]
                waiters.callbacks = []
            }
            return (Array(waiters.continuations.values), waiters.callbacks, takeSatisfiedObservers(&waiters))
        }
        for continuation in continuations { continuation.resume() }
        for callback in callbacks { callback() }
        for observer in observers { observer.resume() }
    }

    // MARK: Writers

    /// Returns at once while the connection is writable (or closed); otherwise suspends until it
    /// is, or until the calling task is cancelled (it then returns too: the caller checks).
    package func waitUntilWritable() async {
        if isWritable { return }
        let key = waiters.withLock { waiters -> UInt64 in
            waiters.next &+= 1
            return waiters.next
        }
        await withTaskCancellationHandler {
            // Safe: resumed exactly once, by whichever of becameWritable, close, cancellation or
            // the check below takes it out of `continuations` first.
            await withUnsafeContinuation { (continuation: UnsafeContinuation<Void, Never>) in
                let (resumeNow, observers) = waiters.withLock { waiters -> (Bool, [UnsafeContinuation<Void, Never>]) in
                    if waiters.closed || writable.load(ordering: .acquiring) { return (true, []) }
                    if waiters.cancelledEarly.remove(key) != nil { return (true, []) }
                    waiters.continuations[key] = continuation
                    return (false, takeSatisfiedObservers(&waiters))
                }
                for observer in observers { observer.resume() }
                if resumeNow { continuation.resume() }
            }
        } onCancel: {
            let continuation = waiters.withLock { waiters -> UnsafeContinuation<Void, Never>? in
                if let continuation = waiters.continuations.removeValue(forKey: key) { return continuation }
                waiters.cancelledEarly.insert(key)
                return nil
            }
            continuation?.resume()
        }
        // A cancel that raced with a resume leaves its key behind; drop it.
        _ = waiters.withLock { $0.cancelledEarly.remove(key) }
    }

    /// Runs `callback` once the connection is writable: at once (on this thread) if it is now,
    /// else on the thread that drains it below low water, or when it closes.
    package func whenWritable(_ callback: @escaping @Sendable () -> Void) {
        let now = waiters.withLock { waiters -> Bool in
            if waiters.closed || writable.load(ordering: .acquiring) { return true }
            waiters.callbacks.append(callback)
            return false
        }
        if now { callback() }
    }
}

/// A transport that keeps an `OutboundFlow` and can stop reading from its peer while the
/// messenger holds input back (wire protocol §4.10). The socket transport is one; a transport that
/// is not gets no flow control: the messenger then never holds input.
package protocol FlowControlledTransport: FrameTransport {
    /// The transport's outbound counts and flags.
    var outboundFlow: OutboundFlow { get }

    /// The messenger lifted a reason to hold input (a handler finished): a reader that waits for
    /// that should look again (`MessengerConnection.inputDemand`). May be called from any thread.
    func inputMayResume()
}

/// The largest frame a side may send: the smaller of its own maximum and the one its peer
/// announced in its HELLO (the protocol default until that HELLO has arrived). A class of its own,
/// so that a channel can keep it and read it per reply with one atomic load.
package final class FrameLimit: Sendable {
    /// This side's own maximum.
    package let own: Int
    private let peer = Atomic<Int>(FrameDecoder.defaultMaxFrameLength)

    package init(own: Int) {
        self.own = own
    }

    /// The largest frame (value of the length field) that may go out now.
    package var current: Int { min(own, peer.load(ordering: .relaxed)) }

    /// The peer's HELLO announced `maximum`.
    package func peerAnnounced(_ maximum: Int) {
        peer.store(maximum, ordering: .relaxed)
    }
}

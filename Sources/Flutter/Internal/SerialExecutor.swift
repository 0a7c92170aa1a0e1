import Dispatch
import Synchronization

/// A serial queue for handlers, with a bound on the work waiting in it: the platform executor of
/// an engine, or a background task queue.
///
/// Work comes in from connection reader threads in arrival order and runs one item at a time in
/// that order. When `limit` items are waiting, `enqueue` refuses more (the caller answers the
/// message with an error); replies and teardown use `enqueueUnbounded`, as they are bounded by the
/// messages already admitted.
///
/// With a `target` (the main queue, for an engine whose platform thread is the main thread) the
/// queue is still this executor's own, so its order, its bound and `drain()` are per engine; its
/// work runs where the target runs its own.
final class SerialExecutor: Sendable {
    let label: String
    let limit: Int
    private let queue: DispatchQueue
    private let waiting = Atomic<Int>(0)
    /// Work is meant for the main thread: the first item that runs elsewhere says so in the log.
    private let reportsMainThread: Bool

    init(label: String, limit: Int, target: DispatchQueue? = nil, reportsMainThread: Bool = false) {
        self.label = label
        self.limit = limit
        self.queue = DispatchQueue(label: label, target: target)
        self.reportsMainThread = reportsMainThread
    }

    /// Runs `work` after everything enqueued before it; `false` (and nothing enqueued) when
    /// `limit` items are already waiting.
    func enqueue(_ work: @escaping @Sendable () -> Void) -> Bool {
        guard waiting.add(1, ordering: .relaxed).newValue <= limit else {
            waiting.subtract(1, ordering: .relaxed)
            return false
        }
        queue.async { [self] in
            waiting.subtract(1, ordering: .relaxed)
            if reportsMainThread { FlutterRunLoop.noteMainQueueWork() }
            work()
        }
        return true
    }

    /// Runs `work` after everything enqueued before it, whatever is waiting.
    func enqueueUnbounded(_ work: @escaping @Sendable () -> Void) {
        queue.async(execute: work)
    }

    /// Waits until everything enqueued so far has run.
    func drain() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            queue.async { continuation.resume() }
        }
    }
}

/// A non-Sendable value handed to another thread that alone uses it from then on: a handler a
/// plugin installed, called only on its executor, or a reply callback called once.
// @unchecked: whoever makes a Handoff stops using the value, so one thread at a time has it.
struct Handoff<Value>: @unchecked Sendable {
    let value: Value

    init(_ value: Value) {
        self.value = value
    }
}

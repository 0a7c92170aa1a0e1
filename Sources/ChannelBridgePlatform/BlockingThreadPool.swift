import Dispatch

/// A fixed number of threads for work that blocks in the kernel (file reads, `flock`, `fsync`,
/// file copies), run in the order it was submitted, so that such work never holds a thread of the
/// concurrency pool and never makes a process start threads without limit. It is the one way the
/// libraries run blocking work for a task (`run`), on `fileWork` unless a user needs threads of
/// its own; a pool is made once for the process.
///
/// Threads start when work finds none idle, up to `maximumThreads`, and then stay for the life of
/// the pool: a pool that ended idle threads would start new ones under the next burst, and each
/// thread started and ended leaves memory behind in the allocator.
///
/// When every thread is busy, work waits for one, in FIFO order. The waiting work is not bounded
/// here: every item stands for a caller suspended until it is done, so the callers' own bounds
/// (a connection's requests in flight, a host's one request) bound the queue.
///
/// When not even one thread can be started (the process is at its thread limit), the work runs
/// on a dispatch worker instead, so that it is late rather than lost.
package final class BlockingThreadPool: Sendable {
    /// The process's threads for file work a task waits for: the store's reads (which run side by
    /// side, never blocking on a group's lock) and the host's items file, Info.plist and copies.
    package static let fileWork = BlockingThreadPool(name: "file work", maximumThreads: 4)

    package let name: String
    package let maximumThreads: Int

    private struct State {
        var waiting: [@Sendable () -> Void] = []
        var head = 0
        var threads = 0
        /// Threads parked on `wakeUp` that no `post` has been counted for yet.
        var idle = 0

        mutating func next() -> (@Sendable () -> Void)? {
            guard head < waiting.count else { return nil }
            let work = waiting[head]
            head += 1
            if head == waiting.count {
                waiting.removeAll(keepingCapacity: waiting.capacity <= 64)
                head = 0
            }
            return work
        }
    }

    private enum Wake {
        case post, startThread, none
    }

    private let state = LockedValue(State())
    private let wakeUp = TimedSemaphore()

    package init(name: String, maximumThreads: Int) {
        precondition(maximumThreads >= 1, "a pool needs at least one thread")
        self.name = name
        self.maximumThreads = maximumThreads
    }

    /// The threads started so far (at most `maximumThreads`).
    package var threadCount: Int { state.withLock { $0.threads } }

    /// Runs `work` on one of the pool's threads and suspends the calling task until it is done.
    package func run<T: Sendable, E: Error>(_ work: @escaping @Sendable () throws(E) -> T) async throws(E) -> T {
        let result: Result<T, E> = await withCheckedContinuation { continuation in
            submit { continuation.resume(returning: Result { () throws(E) -> T in try work() }) }
        }
        return try result.get()
    }

    /// Runs `work` on one of the pool's threads, after the work submitted before it has started.
    package func submit(_ work: @escaping @Sendable () -> Void) {
        let wake = state.withLock { state -> Wake in
            state.waiting.append(work)
            if state.idle > 0 {
                state.idle -= 1
                return .post
            }
            guard state.threads < maximumThreads else { return .none }
            state.threads += 1
            return .startThread
        }
        switch wake {
        case .none: break
        case .post: wakeUp.post()
        case .startThread:
            if DetachedThread.tryStart(name: name, { self.runWorker() }) != 0 { threadUnavailable() }
        }
    }

    /// A thread could not be started: when no thread of the pool exists to take the work, a
    /// dispatch worker takes one item for it.
    private func threadUnavailable() {
        let orphan = state.withLock { state -> (@Sendable () -> Void)? in
            state.threads -= 1
            return state.threads == 0 ? state.next() : nil
        }
        if let orphan { DispatchQueue.global().async(execute: orphan) }
    }

    private func runWorker() {
        while true {
            let work = state.withLock { state -> (@Sendable () -> Void)? in
                if let work = state.next() { return work }
                state.idle += 1
                return nil
            }
            if let work {
                work()
            } else {
                // Every `idle += 1` is matched by one `post` from `submit`: the wait ends when
                // work was added for this thread.
                wakeUp.wait()
            }
        }
    }
}

import ChannelBridgePlatform
import Synchronization

/// A `TaskExecutor` that runs jobs on one connection's reader thread, between reads.
///
/// A call's reply is read on the reader thread. A task on the default executor is then resumed
/// by waking a thread of the concurrency pool, which costs one more context switch per round trip
/// than a blocking request/response loop; that is the largest part of a small call's latency on
/// an otherwise idle machine. A task that prefers this executor resumes on the reader thread
/// itself, right after the read, and frames it sends there leave together in one `sendmsg` once
/// the jobs have run. Turn it on with `SocketConnection.Options.runsTasksOnReaderThread`:
///
/// ```swift
/// var options = SocketConnection.Options()
/// options.runsTasksOnReaderThread = true
/// let connection = try await SocketConnection.connect(to: path, options: options)
/// let channel = MethodChannel(name: "greeter", messenger: connection.messenger)
/// try await withTaskExecutorPreference(connection.executor) {
///     for name in names { _ = try await channel.invokeMethod("hello", arguments: .string(name)) }
/// }
/// ```
///
/// The reader thread never waits for jobs: it blocks in `read` as it always does. A job that
/// another thread enqueues while the reader is blocked runs on the global concurrent executor
/// instead (waking the reader would cost a system call on every read), so a task's first steps
/// after `withTaskExecutorPreference` may run on the pool; from its first reply on it runs on the
/// reader. Jobs share the thread with reading: a job that computes for long delays this
/// connection's frames. Without the option, and once the connection has ended, every job goes to
/// the global concurrent executor, so a task preferring this executor always finishes.
package final class ReaderExecutor: TaskExecutor {
    private struct State {
        /// False when the option is off or the reader has exited: jobs go to the global executor.
        var serving: Bool
        var jobs: [UnownedJob] = []
    }

    /// A leaf lock: nothing under it calls out (jobs run after unlocking), so an enqueue may
    /// take it under any other lock.
    private let state: LockedValue<State>
    /// The reader thread, set by it before it runs jobs and cleared by `finish`; read by every
    /// enqueue, which queues the reader's own jobs without the lock.
    private let readerThread = Atomic<UInt>(0)
    /// The reader is in (or about to enter) a blocking read. Set under `state`'s lock together
    /// with finding the queue empty (`willBlock`) and read by `enqueue` under it, so that no job
    /// is queued for a reader that has blocked; cleared without the lock once the read returns
    /// (`didUnblock`, once a call), since a job that still sees it set only goes to the global
    /// executor.
    private let readerBlocked = Atomic<Bool>(false)
    /// Whether the reader thread runs jobs at all.
    let isEnabled: Bool

    init(enabled: Bool) {
        isEnabled = enabled
        state = LockedValue(State(serving: enabled))
    }

    package func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        if readerThread.load(ordering: .acquiring) == ThreadIdentity.current {
            // The reader's own job (a reply it delivered resumed a call): only the reader touches
            // its list, so no lock. It runs in `runPending`, which the reader calls
            // before it next blocks; `finish` hands what is left to the global executor.
            readerJobs.append(job)
            return
        }
        let toGlobal = state.withLock { state -> Bool in
            guard state.serving, !readerBlocked.load(ordering: .relaxed) else { return true }
            // The reader runs what is queued before it next blocks.
            state.jobs.append(job)
            return false
        }
        if toGlobal { globalConcurrentExecutor.enqueue(job) }
    }

    // MARK: Reader thread

    /// Called by the reader thread once, before anything else. Only when the reader runs jobs:
    /// otherwise its jobs too take the locked path to the global executor.
    func attachReaderThread() {
        guard isEnabled else { return }
        readerThread.store(ThreadIdentity.current, ordering: .releasing)
    }

    /// The reader's batch: swapped with the queue under the lock, so that both arrays keep their
    /// storage and taking a batch allocates nothing (copying the queue out and emptying it would
    /// make the queue allocate anew for every batch).
    /// Invariant: touched only by the reader thread (`runPending`), and swapped under `state`'s lock
    /// or with `readerJobs`.
    @exclusivity(unchecked) private nonisolated(unsafe) var readerBatch: [UnownedJob] = []
    /// Jobs the reader thread enqueued itself, in order. Bounded as `state.jobs` is: a task has at
    /// most one job enqueued at a time, so this holds at most one per task preferring the executor.
    /// Invariant: touched only by the reader thread (`enqueue` on it, `runPending`, `finish`),
    /// from `attachReaderThread` to `finish`, which detach it first.
    @exclusivity(unchecked) private nonisolated(unsafe) var readerJobs: [UnownedJob] = []
    /// Set while the reader runs a job that was alone in its queue: a frame that job writes is
    /// not joined by others of the same round, so the transport sends it at once.
    /// Invariant: touched only by the reader thread (`runPending`; `SocketTransport.enqueue` reads
    /// it only once it has found itself on the reader thread).
    @exclusivity(unchecked) nonisolated(unsafe) var runningLoneJob = false

    /// True on the reader thread while it runs a job that was alone in its queue and has queued
    /// none since: nothing else waits for the thread, so that job may block it to read its own
    /// reply (`SocketTransport.driveReader`). Any thread may ask; only the reader gets true.
    var mayDriveFromCurrentJob: Bool {
        guard readerThread.load(ordering: .relaxed) == ThreadIdentity.current else { return false }
        return runningLoneJob && readerJobs.isEmpty
    }

    /// Runs every queued job, and the jobs those queue, until none is left. Each round runs the
    /// reader's own jobs (without the lock), then the other threads', so neither kind waits
    /// behind the other for more than a round; a round that finds no other thread's job and
    /// leaves none of the reader's ends it, with one lock taken.
    func runPending() {
        let me = asUnownedTaskExecutor()
        while true {
            if readerJobs.count == 1 {
                // The usual round: one call resumed by the reply just read. The job may enqueue
                // others (into `readerJobs`), so it is taken out first.
                let job = readerJobs.removeLast()
                runningLoneJob = true
                job.runSynchronously(on: me)
                runningLoneJob = false
            } else if !readerJobs.isEmpty {
                swap(&readerJobs, &readerBatch)
                runBatch(on: me)
            }
            let taken = state.withLock { state -> Bool in
                guard !state.jobs.isEmpty else { return false }
                swap(&state.jobs, &readerBatch)
                return true
            }
            if taken {
                runBatch(on: me)
            } else if readerJobs.isEmpty {
                return
            }
        }
    }

    /// Runs the jobs in `readerBatch`, in order, and empties it, keeping its storage.
    private func runBatch(on me: UnownedTaskExecutor) {
        for job in readerBatch { job.runSynchronously(on: me) }
        readerBatch.removeAll(keepingCapacity: true)
    }

    /// The reader is about to block in `read`; false when jobs came in meanwhile and should run
    /// first. Until `didUnblock`, other threads' jobs go to the global executor.
    func willBlock() -> Bool {
        guard readerJobs.isEmpty else { return false }
        return state.withLock { state in
            guard state.jobs.isEmpty else { return false }
            readerBlocked.store(true, ordering: .relaxed)
            return true
        }
    }

    /// The reader's `read` returned: jobs queue for it again.
    func didUnblock() {
        readerBlocked.store(false, ordering: .relaxed)
    }

    /// The reader is exiting: jobs already queued and any later ones go to the global executor.
    func finish() {
        // From here the reader's jobs take the locked path, where `serving` sends them on; and a
        // thread that later gets this thread's identity is not taken for the reader.
        readerThread.store(0, ordering: .releasing)
        let own = readerJobs
        readerJobs = []
        let jobs = state.withLock { state -> [UnownedJob] in
            state.serving = false
            defer { state.jobs = [] }
            return state.jobs
        }
        for job in own + jobs { globalConcurrentExecutor.enqueue(job) }
    }
}

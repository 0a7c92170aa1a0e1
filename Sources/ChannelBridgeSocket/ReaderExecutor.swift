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

    /// What only the reader thread touches, with no lock: it lives in a `ThreadConfined` box
    /// (`reader`), which the reader thread claims in `attachReaderThread`, and which a debug build
    /// checks at every access. Other threads' enqueues take the locked path (`state`) instead.
    struct ReaderState {
        /// The reader's batch: swapped with the queue under the lock, so that both arrays keep
        /// their storage and taking a batch allocates nothing (copying the queue out and emptying
        /// it would make the queue allocate anew for every batch). Touched by `runPending`, and
        /// swapped under `state`'s lock or with `jobs`.
        var batch: [UnownedJob] = []
        /// Jobs the reader thread enqueued itself, in order. Bounded as `State.jobs` is: a task
        /// has at most one job enqueued at a time, so this holds at most one per task preferring
        /// the executor. Touched from `attachReaderThread` to `finish`, which detach it first.
        var jobs: [UnownedJob] = []
        /// Set while the reader runs a job that was alone in its queue: a frame that job writes is
        /// not joined by others of the same round, so the transport sends it at once
        /// (`SocketTransport.enqueue` reads it only once it has found itself on the reader thread).
        var runningLoneJob = false
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
            reader.withValue { $0.jobs.append(job) }
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
        reader.claim()
        guard isEnabled else { return }
        readerThread.store(ThreadIdentity.current, ordering: .releasing)
    }

    /// What only the reader thread touches (`ReaderState`).
    @exclusivity(unchecked) private nonisolated(unsafe) var reader = ThreadConfined(ReaderState())

    /// Whether the reader thread runs a job that was alone in its queue (`ReaderState.runningLoneJob`).
    /// Reader thread only.
    var runningLoneJob: Bool {
        get { reader.withValue { $0.runningLoneJob } }
        set { reader.withValue { $0.runningLoneJob = newValue } }
    }

    /// True on the reader thread while it runs a job that was alone in its queue and has queued
    /// none since: nothing else waits for the thread, so that job may block it to read its own
    /// reply (`SocketTransport.driveReader`). Any thread may ask; only the reader gets true.
    var mayDriveFromCurrentJob: Bool {
        guard readerThread.load(ordering: .relaxed) == ThreadIdentity.current else { return false }
        return reader.withValue { $0.runningLoneJob && $0.jobs.isEmpty }
    }

    /// Runs every queued job, and the jobs those queue, until none is left. Each round runs the
    /// reader's own jobs (without the lock), then the other threads', so neither kind waits
    /// behind the other for more than a round; a round that finds no other thread's job and
    /// leaves none of the reader's ends it, with one lock taken.
    func runPending() {
        let me = asUnownedTaskExecutor()
        while true {
            // The usual round: one call resumed by the reply just read. The job may enqueue
            // others (into `ReaderState.jobs`), so it is taken out first; no job runs inside an
            // access to the box, since a job reaches the box again.
            var batched = false
            let lone = reader.withValue { reader -> UnownedJob? in
                if reader.jobs.count == 1 {
                    reader.runningLoneJob = true
                    return reader.jobs.removeLast()
                }
                if !reader.jobs.isEmpty {
                    swap(&reader.jobs, &reader.batch)
                    batched = true
                }
                return nil
            }
            if let lone {
                lone.runSynchronously(on: me)
                reader.withValue { $0.runningLoneJob = false }
            } else if batched {
                runBatch(on: me)
            }
            let taken = state.withLock { state -> Bool in
                guard !state.jobs.isEmpty else { return false }
                reader.withValue { swap(&state.jobs, &$0.batch) }
                return true
            }
            if taken {
                runBatch(on: me)
            } else if reader.withValue({ $0.jobs.isEmpty }) {
                return
            }
        }
    }

    /// Runs the jobs in `ReaderState.batch`, in order, and empties it, keeping its storage. Each
    /// job is taken out in an access to the box of its own, so that none runs inside one.
    private func runBatch(on me: UnownedTaskExecutor) {
        var index = 0
        while let job = reader.withValue({ index < $0.batch.count ? $0.batch[index] : nil }) {
            job.runSynchronously(on: me)
            index += 1
        }
        if index > 0 { reader.withValue { $0.batch.removeAll(keepingCapacity: true) } }
    }

    /// The reader is about to block in `read`; false when jobs came in meanwhile and should run
    /// first. Until `didUnblock`, other threads' jobs go to the global executor.
    func willBlock() -> Bool {
        guard reader.withValue({ $0.jobs.isEmpty }) else { return false }
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
        let own = reader.withValue { reader in
            defer { reader.jobs = [] }
            return reader.jobs
        }
        let jobs = state.withLock { state -> [UnownedJob] in
            state.serving = false
            defer { state.jobs = [] }
            return state.jobs
        }
        for job in own + jobs { globalConcurrentExecutor.enqueue(job) }
    }
}

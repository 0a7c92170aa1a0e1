import Glibc
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
/// Jobs share the thread with reading: a job that computes for long delays this connection's
/// frames, and a job that blocks waiting for this connection's replies never gets them. Without
/// the option, and once the connection has ended, jobs go to the global concurrent executor, so
/// a task preferring this executor always finishes.
public final class ReaderExecutor: TaskExecutor {
    private enum Phase {
        /// Not started yet, or serving; jobs queue for the reader thread.
        case reader
        /// The option is off or the reader has exited: jobs go to the global executor.
        case global
    }

    private struct State {
        var phase: Phase
        var jobs: [UnownedJob] = []
        var readerWaiting = false
        var wakePending = false
    }

    private let state: Mutex<State>
    /// The eventfd that wakes a reader waiting in `poll`; -1 when jobs never run on the reader.
    let wakeDescriptor: Int32
    /// Set once by the reader thread before it runs jobs, read by every enqueue.
    private let readerThread = Atomic<UInt>(0)

    init(enabled: Bool) {
        let descriptor = enabled ? Syscalls.newEventDescriptor() : -1
        wakeDescriptor = descriptor
        state = Mutex(State(phase: descriptor >= 0 ? .reader : .global))
    }

    deinit {
        // A connection whose reader never ran (its setup failed) still owns the eventfd.
        if case .reader = state.withLock({ $0.phase }) { Syscalls.closeDescriptor(wakeDescriptor) }
    }

    /// Whether the reader thread must wait with `poll` on the socket and this executor's eventfd.
    var runsOnReader: Bool { wakeDescriptor >= 0 }

    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let onReader = readerThread.load(ordering: .acquiring) == Self.currentThreadID()
        let toGlobal = state.withLock { state -> Bool in
            guard case .reader = state.phase else { return true }
            state.jobs.append(job)
            // The reader runs its own jobs before it next waits; others wake it when it waits.
            if !onReader, state.readerWaiting, !state.wakePending {
                state.wakePending = true
                // Under the lock, so that `finish` cannot close the descriptor before this write.
                Syscalls.signal(eventDescriptor: wakeDescriptor)
            }
            return false
        }
        if toGlobal { globalConcurrentExecutor.enqueue(job) }
    }

    // MARK: Reader thread

    /// Called by the reader thread once, before anything else.
    func attachReaderThread() {
        readerThread.store(Self.currentThreadID(), ordering: .releasing)
    }

    /// Runs every queued job, and the jobs those queue, until none is left.
    func runPending() {
        let me = asUnownedTaskExecutor()
        while true {
            let batch = state.withLock { state -> [UnownedJob] in
                guard !state.jobs.isEmpty else { return [] }
                defer { state.jobs.removeAll(keepingCapacity: true) }
                return state.jobs
            }
            if batch.isEmpty { return }
            for job in batch { job.runSynchronously(on: me) }
        }
    }

    /// Marks the reader as about to wait; false when jobs came in meanwhile and should run first.
    func prepareToWait() -> Bool {
        state.withLock { state in
            guard state.jobs.isEmpty else { return false }
            state.readerWaiting = true
            return true
        }
    }

    /// After the wait: later enqueues need not wake the reader until it waits again.
    func finishedWaiting() {
        let drain = state.withLock { state -> Bool in
            state.readerWaiting = false
            defer { state.wakePending = false }
            return state.wakePending
        }
        if drain { Syscalls.drain(eventDescriptor: wakeDescriptor) }
    }

    /// The reader is exiting: jobs already queued and any later ones go to the global executor.
    func finish() {
        let (jobs, close) = state.withLock { state -> ([UnownedJob], Bool) in
            guard case .reader = state.phase else { return ([], false) }
            state.phase = .global
            defer { state.jobs = [] }
            return (state.jobs, true)
        }
        if close { Syscalls.closeDescriptor(wakeDescriptor) }
        for job in jobs { globalConcurrentExecutor.enqueue(job) }
    }

    private static func currentThreadID() -> UInt {
        UInt(pthread_self())
    }
}

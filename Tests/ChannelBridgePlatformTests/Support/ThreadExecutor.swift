import ChannelBridgePlatform
import Synchronization

/// An executor with one thread of its own, for tests that check where code runs: a task that
/// prefers it (`withTaskExecutorPreference`) or an actor whose executor it is runs its jobs there.
///
/// The thread parks on a semaphore between jobs (it is no thread of the cooperative pool), keeps
/// the executor alive while it runs and ends after `stop()`, once the jobs enqueued before it ran.
final class ThreadExecutor: TaskExecutor, SerialExecutor {
    private struct Queue {
        var jobs: [UnownedJob] = []
        var stopped = false
    }

    private let queue = LockedValue(Queue())
    private let wake = TimedSemaphore()
    private let runningThread = Atomic<UInt>(0)
    private let jobsStarted = Atomic<Int>(0)

    init(name: String) {
        DetachedThread.start(name: name) { [self] in run() }
    }

    /// The executor's thread (`ThreadIdentity.current` there); 0 until it has started, which it
    /// has by the time any job of it runs.
    var thread: UInt { runningThread.load(ordering: .acquiring) }

    /// How many jobs have started on the thread: equal before and after a stretch of code on it
    /// when that code did not hop (it suspended and was resumed by no job of this executor).
    var startedJobs: Int { jobsStarted.load(ordering: .relaxed) }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        queue.withLock { $0.jobs.append(job) }
        wake.post()
    }

    /// Lets the thread end once every job enqueued so far has run.
    func stop() {
        queue.withLock { $0.stopped = true }
        wake.post()
    }

    private func run() {
        runningThread.store(ThreadIdentity.current, ordering: .releasing)
        while true {
            wake.wait()
            let (jobs, stopped) = queue.withLock { queue in
                defer { queue.jobs.removeAll() }
                return (queue.jobs, queue.stopped)
            }
            for job in jobs {
                jobsStarted.add(1, ordering: .relaxed)
                job.runSynchronously(isolatedTo: asUnownedSerialExecutor(), taskExecutor: asUnownedTaskExecutor())
            }
            if stopped { return }
        }
    }
}

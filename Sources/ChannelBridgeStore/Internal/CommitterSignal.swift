#if canImport(Glibc)
import Glibc
#endif

/// Wakes a group's committer thread: a POSIX semaphore (ThreadSanitizer intercepts `sem_post` and
/// `sem_wait`, so what the submitter did before posting is ordered before what the committer does
/// after waking).
///
/// Why a thread of our own rather than a serial `DispatchQueue`: handing a write to an idle
/// dispatch queue cost 40-57 µs before the committer started (probe in the host during
/// `bench prefs`, one CPU), about a tenth of a durable write; waking a parked thread costs a
/// futex wake.
// @unchecked: the semaphore is used only through sem_post/sem_timedwait, which are thread-safe;
// its address never moves (allocated once, freed in deinit when no thread can use it).
final class CommitterSignal: @unchecked Sendable {
    private let semaphore = UnsafeMutablePointer<sem_t>.allocate(capacity: 1)

    init() {
        sem_init(semaphore, 0, 0)
    }

    deinit {
        sem_destroy(semaphore)
        semaphore.deallocate()
    }

    func post() {
        sem_post(semaphore)
    }

    /// Waits for a post; `false` when `seconds` passed first.
    func wait(seconds: Int) -> Bool {
        var deadline = timespec()
        clock_gettime(CLOCK_REALTIME, &deadline)
        deadline.tv_sec += seconds
        while true {
            if sem_timedwait(semaphore, &deadline) == 0 { return true }
            if errno == EINTR { continue }
            return false
        }
    }
}

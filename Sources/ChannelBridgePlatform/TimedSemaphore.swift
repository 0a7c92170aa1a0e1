import Glibc

/// A POSIX semaphore one thread parks on, with a timeout. ThreadSanitizer intercepts `sem_post`
/// and `sem_wait`, so what the poster did before posting is ordered before what the waiter does
/// after waking; waking a parked thread costs a futex wake.
// Its address never moves: allocated once, freed in deinit when no thread can use it.
// @unchecked: the semaphore is used only through sem_post/sem_timedwait, which are thread-safe.
package final class TimedSemaphore: @unchecked Sendable {
    private let semaphore = UnsafeMutablePointer<sem_t>.allocate(capacity: 1)

    package init() {
        sem_init(semaphore, 0, 0)
    }

    deinit {
        sem_destroy(semaphore)
        semaphore.deallocate()
    }

    /// Lets one wait return (now or when it comes).
    package func post() {
        sem_post(semaphore)
    }

    /// Waits for a post, however long it takes.
    package func wait() {
        while sem_wait(semaphore) != 0, errno == EINTR {}
    }

    /// Waits for a post; `false` when `seconds` passed first.
    package func wait(seconds: Int) -> Bool {
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

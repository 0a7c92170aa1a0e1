import Foundation
import Glibc
import Synchronization
import Testing

/// An app group's `.lock` held with `flock(LOCK_EX)` by the test process, through an open file
/// description of its own, so that a host's commit for that group blocks in `flock` until
/// `release()`. The lock file is watched (inotify `IN_OPEN`) from after the test's own open, so
/// `waitForOpenByAnother()` returns once someone else, the host's committer, has opened it: from
/// then on that commit, and the write it carries, cannot finish while the lock is held.
final class HeldGroupLock: Sendable {
    private let lockFD: Int32
    private let watchFD: Int32

    /// Takes the lock of the group whose directory is `groupDirectory` (which must exist).
    init(groupDirectory: String) throws {
        let path = groupDirectory + "/.lock"
        lockFD = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        try #require(lockFD >= 0, "cannot open \(path): errno \(errno)")
        try #require(flock(lockFD, LOCK_EX) == 0, "cannot lock \(path): errno \(errno)")
        watchFD = inotify_init1(Int32(IN_CLOEXEC))
        try #require(watchFD >= 0, "inotify_init1: errno \(errno)")
        try #require(
            inotify_add_watch(watchFD, path, UInt32(IN_OPEN)) >= 0, "inotify_add_watch \(path): errno \(errno)")
    }

    /// Returns once the lock file has been opened by another than this object (the events queue
    /// in the inotify descriptor, so an open before this call counts). Waits on a thread of its
    /// own, never on the concurrency pool. Call it once.
    func waitForOpenByAnother() async {
        let watchFD = watchFD
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let thread = Thread {
                var buffer = [UInt8](repeating: 0, count: 4096)
                while true {
                    let count = buffer.withUnsafeMutableBytes { read(watchFD, $0.baseAddress, $0.count) }
                    if count < 0 && errno == EINTR { continue }
                    break
                }
                continuation.resume()
            }
            thread.start()
        }
    }

    private let released = Mutex(false)

    /// Releases the lock (closing its descriptor) and stops watching; once. A second close of
    /// the same numbers would close whatever descriptors other tests of the process were given
    /// since.
    func release() {
        let first = released.withLock { released in
            defer { released = true }
            return !released
        }
        guard first else { return }
        close(lockFD)
        close(watchFD)
    }
}

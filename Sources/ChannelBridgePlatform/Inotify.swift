import Glibc

/// An inotify descriptor's calls, for the store's change streams: error numbers returned, never
/// read from `errno` by the caller. The event masks and the event layout are the kernel's ABI
/// (linux/inotify.h); the caller spells out the ones it uses.
package enum Inotify {
    /// `inotify_init1` with the given flags: the descriptor, or minus the error number.
    package static func start(flags: Int32) -> Int32 {
        let fd = inotify_init1(flags)
        return fd >= 0 ? fd : -errno
    }

    /// `inotify_add_watch`: the watch descriptor, or minus the error number.
    package static func addWatch(_ fd: Int32, path: String, mask: UInt32) -> Int32 {
        let watch = inotify_add_watch(fd, path, mask)
        return watch >= 0 ? watch : -errno
    }

    /// `inotify_rm_watch`.
    package static func removeWatch(_ fd: Int32, _ watch: Int32) {
        _ = inotify_rm_watch(fd, watch)
    }

    /// Blocks in `read` until events arrive: the byte count (0 or less when the descriptor failed).
    package static func read(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer) -> Int {
        FileCalls.retryingOnInterrupt { Glibc.read(fd, buffer.baseAddress, buffer.count) }
    }

    /// `read` on a descriptor started with `IN_NONBLOCK`: the byte count, or minus the error
    /// number (`-EAGAIN` when no event is queued). Never blocks. Called for every cached store
    /// read, so it goes through `Syscalls.read` (the system call itself, without glibc's
    /// cancellation bookkeeping).
    package static func readAvailable(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer) -> Int {
        Syscalls.read(fd, into: buffer)
    }
}

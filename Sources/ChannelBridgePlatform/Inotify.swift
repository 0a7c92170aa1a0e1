import CChannelBridgeSyscalls
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
    /// read, so it is the system call itself, its error number returned rather than set in
    /// `errno` (`cb_read_now`): no cancellation bookkeeping, no error path for `-EAGAIN`.
    package static func readAvailable(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer) -> Int {
        while true {
            let count = cb_read_now(fd, buffer.baseAddress, buffer.count)
            if count != -Int(Glibc.EINTR) { return count }
        }
    }

    /// Calls `body` with each `struct inotify_event` of `bytes`, as a `read` gave them (wd, mask,
    /// cookie, len, then `len` bytes of NUL-padded name): its watch descriptor, its mask and its
    /// name without the padding, empty for an event on the watched directory itself or an
    /// overflow.
    package static func forEachEvent(
        in bytes: ArraySlice<UInt8>,
        _ body: (_ watch: Int32, _ mask: UInt32, _ name: Slice<UnsafeRawBufferPointer>) -> Void
    ) {
        bytes.withUnsafeBytes { forEachEvent(in: $0, body) }
    }

    /// `forEachEvent(in:_:)` on bytes where they lie.
    package static func forEachEvent(
        in raw: UnsafeRawBufferPointer,
        _ body: (_ watch: Int32, _ mask: UInt32, _ name: Slice<UnsafeRawBufferPointer>) -> Void
    ) {
        var offset = 0
        while offset + 16 <= raw.count {
            let watch = raw.loadUnaligned(fromByteOffset: offset, as: Int32.self)
            let mask = raw.loadUnaligned(fromByteOffset: offset + 4, as: UInt32.self)
            let nameLength = Int(raw.loadUnaligned(fromByteOffset: offset + 12, as: UInt32.self))
            let name = raw[(offset + 16)..<min(raw.count, offset + 16 + nameLength)].prefix { $0 != 0 }
            offset += 16 + nameLength
            body(watch, mask, name)
        }
    }
}

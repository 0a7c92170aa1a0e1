import ChannelBridgePlatform

/// What lets a cached read skip the `stat` of `preferences.json` ("Cached documents" in
/// Protocol/store.md): one non-blocking inotify descriptor for the process, watching the directory
/// of every group whose document is cached, and an *epoch* that goes up whenever an event may have
/// changed a watched `preferences.json`.
///
/// The kernel queues an inotify event inside the system call that makes the change (the writer's
/// `rename`, a tool's `write`), before that call returns. So a read that drains the queue after
/// another process acknowledged a write finds that write's event: while the epoch is the one at
/// which a `stat` last matched the cached document, no change has happened since that `stat`.
/// A get then costs one `read` that finds nothing instead of a `stat`, whose path walk costs
/// several times as much (`channelbridge-bench prefs`).
///
/// Every event counts for every group (one epoch, not one per directory): a change in one group
/// only sends the next read of each group through one `stat`. Events for other names in the
/// directory (the lock file, the temporary file) are dropped.
///
/// Bounds: one descriptor and one 4 KiB read buffer for the process; one watch per watched
/// directory, counted by its users. The kernel's queue is bounded (`max_queued_events`); when it
/// overflows the epoch goes up, as for any change. When inotify is not available (out of
/// descriptors or watches) or the descriptor fails, `epoch()` is `nil` and every read takes the
/// `stat`, as before.
final class FreshnessWatch: Sendable {
    static let shared = FreshnessWatch()

    // inotify's ABI constants (linux/inotify.h), spelled out because Glibc imports them untyped.
    private static let modify: UInt32 = 0x0000_0002
    private static let attributes: UInt32 = 0x0000_0004
    private static let closeWrite: UInt32 = 0x0000_0008
    private static let movedFrom: UInt32 = 0x0000_0040
    private static let movedTo: UInt32 = 0x0000_0080
    private static let create: UInt32 = 0x0000_0100
    private static let delete: UInt32 = 0x0000_0200
    private static let deleteSelf: UInt32 = 0x0000_0400
    private static let moveSelf: UInt32 = 0x0000_0800
    private static let queueOverflow: UInt32 = 0x0000_4000
    private static let ignored: UInt32 = 0x0000_8000
    private static let onlyDirectory: UInt32 = 0x0100_0000
    private static let nonBlocking: Int32 = 0o4_000
    private static let closeOnExec: Int32 = 0o2_000_000
    /// Everything that can change what a `stat` of `preferences.json` reports: its contents and
    /// size, its times and mode, the name given to another file or taken away, the directory gone.
    static let watchMask =
        modify | attributes | closeWrite | movedFrom | movedTo | create | delete
        | deleteSelf | moveSelf | onlyDirectory
    private static let watchedName = Array("preferences.json".utf8)

    private enum Descriptor {
        case notStarted
        case open(Int32)
        /// `inotify_init1` failed or the descriptor did: reads take the `stat`.
        case unavailable
    }

    private struct State {
        var descriptor = Descriptor.notStarted
        var epoch: UInt64 = 0
        /// Live watches and how many groups use each.
        var users: [Int32: Int] = [:]
    }

    private let state = LockedValue(State())
    /// Where events are read to: touched only under `state`'s lock. A buffer of its own rather
    /// than an array in `State`, so that the read a cached get pays for needs no uniqueness check.
    private nonisolated(unsafe) let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 4_096, alignment: 8)
    /// `inotify_init1`, or a stand-in that fails (a test).
    private let start: @Sendable (Int32) -> Int32

    init(start: @escaping @Sendable (Int32) -> Int32 = Inotify.start(flags:)) {
        self.start = start
    }

    deinit {
        if case .open(let descriptor) = state.withLock({ $0.descriptor }) { FileCalls.close(descriptor) }
        buffer.deallocate()
    }

    /// Starts watching `directory` for one user, and returns the watch; `nil` when it cannot be
    /// watched (it does not exist, or inotify is unavailable). Give it back with `unwatch(_:)`.
    func watch(_ directory: String) -> Int32? {
        state.withLock { state -> Int32? in
            if case .notStarted = state.descriptor {
                let descriptor = start(Self.nonBlocking | Self.closeOnExec)
                state.descriptor = descriptor >= 0 ? .open(descriptor) : .unavailable
            }
            guard case .open(let descriptor) = state.descriptor else { return nil }
            let watch = Inotify.addWatch(descriptor, path: directory, mask: Self.watchMask)
            guard watch >= 0 else { return nil }
            state.users[watch, default: 0] += 1
            return watch
        }
    }

    /// Gives a watch back; the directory stops being watched when its last user gives it back.
    func unwatch(_ watch: Int32) {
        state.withLock { state in
            guard case .open(let descriptor) = state.descriptor, let users = state.users[watch] else { return }
            if users > 1 {
                state.users[watch] = users - 1
            } else {
                state.users[watch] = nil
                Inotify.removeWatch(descriptor, watch)
            }
        }
    }

    /// Reads every queued event, then returns the epoch: unchanged since an earlier call exactly
    /// when no watched `preferences.json` (or watched directory) changed in between. `nil` when
    /// inotify is unavailable, or when `watch` is given and no longer watches its directory (it
    /// was deleted or moved away: a directory now at its path is not watched). The read happens
    /// under the lock, so a caller that gets the epoch has seen every event queued before its
    /// call, including those another thread read.
    func epoch(requiring watch: Int32? = nil) -> UInt64? {
        state.withLock { state -> UInt64? in
            guard case .open(let descriptor) = state.descriptor else { return nil }
            while true {
                let count = Inotify.readAvailable(descriptor, into: buffer)
                if count == -Int(Errno.EAGAIN) { break }
                guard count > 0 else {
                    // The descriptor failed (it should not): vouch for nothing from now on.
                    state.descriptor = .unavailable
                    state.users = [:]
                    FileCalls.close(descriptor)
                    return nil
                }
                let (changed, dropped) = Self.absorb(
                    UnsafeRawBufferPointer(rebasing: buffer[0..<count]), users: &state.users)
                if changed { state.epoch &+= 1 }
                // A directory moved away keeps its watch in the kernel; nobody relies on it now.
                for watch in dropped { Inotify.removeWatch(descriptor, watch) }
            }
            if let watch, state.users[watch] == nil { return nil }
            return state.epoch
        }
    }

    /// Goes through a read's events: whether any can have changed a watched `preferences.json`,
    /// and the watches of directories moved away, to be removed. Forgets those and the watches the
    /// kernel dropped (`IN_IGNORED`: the directory was deleted).
    static func absorb(
        _ bytes: UnsafeRawBufferPointer, users: inout [Int32: Int]
    ) -> (changed: Bool, dropped: [Int32]) {
        var changed = false
        var dropped: [Int32] = []
        Inotify.forEachEvent(in: bytes) { watch, mask, name in
            if mask & ignored != 0 {
                users[watch] = nil
            } else if mask & (moveSelf | deleteSelf) != 0, users.removeValue(forKey: watch) != nil {
                dropped.append(watch)
            }
            // Events on the directory itself, and an overflow, have no name.
            if name.isEmpty || name.elementsEqual(watchedName) { changed = true }
        }
        return (changed, dropped)
    }
}

import ChannelBridgePlatform
import FoundationEssentials

/// One inotify descriptor for the whole process, watching every group directory that has a change
/// stream, read by one dedicated thread (its `read` blocks, so it never runs on the
/// cooperative pool). Writers replace `preferences.json` by renaming a temporary file over it, so
/// the event that matters is `IN_MOVED_TO` for that name; `IN_CLOSE_WRITE` and `IN_DELETE` catch
/// other tools that write or delete the file in place.
final class DirectoryWatcher: Sendable {
    static let shared = DirectoryWatcher()

    /// Starts the reading thread: `DetachedThread.tryStart` (a test passes one that fails).
    private let startThread: @Sendable (String, @escaping @Sendable () -> Void) -> Int32

    init(startThread: @escaping @Sendable (String, @escaping @Sendable () -> Void) -> Int32 = DetachedThread.tryStart) {
        self.startThread = startThread
    }

    // inotify's ABI constants (linux/inotify.h), spelled out because Glibc imports them untyped.
    private static let closeWrite: UInt32 = 0x0000_0008
    private static let movedFrom: UInt32 = 0x0000_0040
    private static let movedTo: UInt32 = 0x0000_0080
    private static let delete: UInt32 = 0x0000_0200
    private static let queueOverflow: UInt32 = 0x0000_4000
    private static let ignored: UInt32 = 0x0000_8000
    private static let onlyDirectory: UInt32 = 0x0100_0000
    private static let closeOnExec: Int32 = 0o2_000_000
    private static let watchMask = closeWrite | movedFrom | movedTo | delete | onlyDirectory
    private static let watchedName = "preferences.json"

    private struct State {
        var descriptor: Int32 = -1
        var subscriptions: [Int32: [ObjectIdentifier: GroupEngine]] = [:]
        var watchBySubscription: [ObjectIdentifier: Int32] = [:]
    }

    private let state = LockedValue(State())

    /// Starts watching the group's directory (which must exist) for `subscription`.
    func add(_ subscription: GroupEngine) throws(StoreError) {
        let directory = subscription.files.directory
        try state.withLock { (state: inout State) throws(StoreError) in
            if state.descriptor < 0 {
                let descriptor = Inotify.start(flags: Self.closeOnExec)
                if descriptor < 0 {
                    throw FileSystem.failure("cannot start inotify", path: directory, errno: -descriptor)
                }
                // The thread starts under the lock so that no other subscription can join a
                // descriptor whose thread then fails to start; `pthread_create` does not call
                // back into this lock, and the thread takes it only once it has read events.
                // No thread, no events: refuse this subscription, do not trap.
                let started = startThread("store watcher") { [self] in run(descriptor: descriptor) }
                if started != 0 {
                    FileCalls.close(descriptor)
                    throw FileSystem.failure("cannot start the store watcher thread", path: directory, errno: started)
                }
                state.descriptor = descriptor
            }
            let watch = Inotify.addWatch(state.descriptor, path: directory, mask: Self.watchMask)
            if watch < 0 {
                throw FileSystem.failure("cannot watch directory '\(directory)'", path: directory, errno: -watch)
            }
            state.subscriptions[watch, default: [:]][ObjectIdentifier(subscription)] = subscription
            state.watchBySubscription[ObjectIdentifier(subscription)] = watch
        }
    }

    /// Stops telling the group about events, and stops watching a directory nobody watches any more.
    func remove(_ subscription: GroupEngine) {
        state.withLock { state in
            let id = ObjectIdentifier(subscription)
            guard let watch = state.watchBySubscription.removeValue(forKey: id) else { return }
            state.subscriptions[watch]?[id] = nil
            if state.subscriptions[watch]?.isEmpty == true {
                state.subscriptions[watch] = nil
                Inotify.removeWatch(state.descriptor, watch)
            }
        }
    }

    private func run(descriptor: Int32) {
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = buffer.withUnsafeMutableBytes { raw in
                Inotify.read(descriptor, into: raw)
            }
            if count <= 0 {
                stop(descriptor: descriptor)
                return
            }
            let events = Self.parse(buffer[0..<count])
            let (toRefresh, toFinish) = state.withLock { state -> ([GroupEngine], [GroupEngine]) in
                var refresh: [GroupEngine] = []
                var finish: [GroupEngine] = []
                if events.overflowed {
                    refresh = state.subscriptions.values.flatMap { $0.values }
                } else {
                    for watch in events.changed {
                        if let watching = state.subscriptions[watch] { refresh.append(contentsOf: watching.values) }
                    }
                }
                for watch in events.gone {
                    // The directory itself went away; these streams can report nothing more.
                    guard let gone = state.subscriptions.removeValue(forKey: watch) else { continue }
                    for subscription in gone.values {
                        state.watchBySubscription[ObjectIdentifier(subscription)] = nil
                        finish.append(subscription)
                    }
                }
                return (refresh, finish)
            }
            // Outside the lock: a refresh reads the file and takes the group's own locks.
            for subscription in toRefresh { subscription.refreshAfterEvent() }
            for subscription in toFinish { subscription.watchEnded() }
        }
    }

    /// The descriptor failed (it should not): end every stream rather than leave them silent, and
    /// let the next subscription start a new descriptor.
    private func stop(descriptor: Int32) {
        let orphans = state.withLock { state -> [GroupEngine] in
            guard state.descriptor == descriptor else { return [] }
            let all = state.subscriptions.values.flatMap { $0.values }
            state = State()
            return all
        }
        FileCalls.close(descriptor)
        for subscription in orphans { subscription.watchEnded() }
    }

    private struct Events {
        var changed: [Int32] = []
        var gone: [Int32] = []
        var overflowed = false
    }

    /// The watches a read's events changed, dropped or overflowed.
    private static func parse(_ bytes: ArraySlice<UInt8>) -> Events {
        var events = Events()
        Inotify.forEachEvent(in: bytes) { watch, mask, name in
            if mask & queueOverflow != 0 {
                events.overflowed = true
            } else if mask & ignored != 0 {
                events.gone.append(watch)
            } else if name.elementsEqual(watchedName.utf8), !events.changed.contains(watch) {
                events.changed.append(watch)
            }
        }
        return events
    }
}

/// Change streams: one `ChangeQueue` per stream, posted to whenever a document is installed
/// (this process's commits, and files written by others, found by inotify or by a read).
import ChannelBridgePlatform

extension GroupEngine {
    /// A new change queue whose baseline is the file as it is now. Blocks.
    ///
    /// The directory watch exists before the baseline is read, so no write falls between the two;
    /// a file that cannot be read fails here.
    func subscribe() throws(StoreError) -> ChangeQueue<String> {
        try FileSystem.makeDirectories(files.directory)
        let queue = ChangeQueue<String>()
        try loading.withLock { (watchers: inout Watchers) throws(StoreError) in
            let startedWatching = !watchers.watching
            if startedWatching {
                try DirectoryWatcher.shared.add(self)
                watchers.watching = true
            }
            do throws(StoreError) {
                try refreshLocked(&watchers)
            } catch {
                if startedWatching && watchers.queues.isEmpty {
                    DirectoryWatcher.shared.remove(self)
                    watchers.watching = false
                }
                throw error
            }
            watchers.queues[ObjectIdentifier(queue)] = queue
        }
        return queue
    }

    /// Ends `queue` and stops watching the directory when it was the last one.
    func unsubscribe(_ queue: ChangeQueue<String>) {
        queue.finish()
        loading.withLock { watchers in
            watchers.queues[ObjectIdentifier(queue)] = nil
            if watchers.queues.isEmpty && watchers.watching {
                DirectoryWatcher.shared.remove(self)
                watchers.watching = false
            }
        }
    }

    /// The directory watcher saw `preferences.json` change. A file that cannot be read is skipped:
    /// the streams carry on from the last good document once it is readable again.
    func refreshAfterEvent() {
        try? loading.withLock { (watchers: inout Watchers) throws(StoreError) in
            guard !watchers.queues.isEmpty else { return }
            try refreshLocked(&watchers)
        }
    }

    /// The group directory went away (or the watcher failed): the streams can report nothing
    /// more and end.
    func watchEnded() {
        let ended = loading.withLock { watchers -> [ChangeQueue<String>] in
            defer {
                watchers.queues = [:]
                watchers.watching = false
            }
            return Array(watchers.queues.values)
        }
        for queue in ended { queue.close() }
    }
}

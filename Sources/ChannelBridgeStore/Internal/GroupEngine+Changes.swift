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
        var wakeups: Wakeups = []
        defer { for wakeup in wakeups { wakeup.resume() } }
        try loading.withLock { (_: inout UInt8) throws(StoreError) in
            try streams.withLock { (watchers: inout Watchers) throws(StoreError) in
                if !watchers.watching {
                    try DirectoryWatcher.shared.add(self)
                    watchers.watching = true
                }
                watchers.subscribing += 1
            }
            do throws(StoreError) {
                try refreshLocked(&wakeups)
            } catch {
                streams.withLock { watchers in
                    watchers.subscribing -= 1
                    stopWatchingIfUnused(&watchers)
                }
                throw error
            }
            streams.withLock { watchers in
                watchers.subscribing -= 1
                watchers.queues[ObjectIdentifier(queue)] = queue
            }
        }
        return queue
    }

    /// Ends `queue` and stops watching the directory when it was the last one. Takes no lock a
    /// commit holds across I/O: this runs in a stream's termination and cancellation handlers.
    func unsubscribe(_ queue: ChangeQueue<String>) {
        queue.finish()
        streams.withLock { watchers in
            watchers.queues[ObjectIdentifier(queue)] = nil
            stopWatchingIfUnused(&watchers)
        }
    }

    private func stopWatchingIfUnused(_ watchers: inout Watchers) {
        if watchers.queues.isEmpty && watchers.subscribing == 0 && watchers.watching {
            DirectoryWatcher.shared.remove(self)
            watchers.watching = false
        }
    }

    /// The directory watcher saw `preferences.json` change. A file that cannot be read is skipped:
    /// the streams carry on from the last good document once it is readable again.
    func refreshAfterEvent() {
        guard streams.withLock({ !$0.queues.isEmpty }) else { return }
        try? refresh()
    }

    /// The group directory went away (or the watcher failed): the streams can report nothing
    /// more and end.
    func watchEnded() {
        let ended = streams.withLock { watchers -> [ChangeQueue<String>] in
            defer {
                watchers.queues = [:]
                watchers.watching = false
            }
            return Array(watchers.queues.values)
        }
        for queue in ended { queue.close() }
    }
}

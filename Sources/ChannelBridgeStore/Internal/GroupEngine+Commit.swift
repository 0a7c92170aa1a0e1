import ChannelBridgePlatform
import Dispatch
#if canImport(Glibc)
import Glibc
#endif

/// Group commit: writes that wait for the group's lock are applied together in one locked
/// read-modify-write with one durable replace, and each is acknowledged only once that replace is
/// durable (Protocol/store.md, "Writing").
extension GroupEngine {
    /// Queues `change` and waits for its commit. The write takes its place in the queue before this
    /// function first suspends, so writes started one after another from one thread are applied in
    /// that order (what the plugin's program order relies on).
    @discardableResult
    func perform<T: Sendable>(_ description: String,
                              _ change: @escaping @Sendable (inout DocumentEdit) -> T) async throws(StoreError) -> T {
        let request = WriteRequest(description, change)
        // A task cancelled before its write is queued never queues it (and so never races the
        // committer for it).
        if Task.isCancelled { request.withdraw() } else { submit(request) }
        return try await request.result()
    }

    /// Appends a write to the queue and starts the committer if it is idle.
    func submit(_ request: any PendingWrite) {
        let start = commits.withLock { commits -> Bool in
            commits.pending.append(request)
            if commits.running { return false }
            commits.running = true
            return true
        }
        if start { writeQueue.async { self.drain() } }
    }

    /// Commits batches until no write waits.
    private func drain() {
        while true {
            let batch = commits.withLock { commits -> [any PendingWrite] in
                var batch: [any PendingWrite] = []
                while batch.count < Self.maximumBatch, commits.head < commits.pending.count {
                    let next = commits.pending[commits.head]
                    commits.head += 1
                    if next.beginCommit() { batch.append(next) }
                }
                if commits.head == commits.pending.count {
                    commits.pending.removeAll(keepingCapacity: commits.pending.count <= 4_096)
                    commits.head = 0
                }
                if batch.isEmpty { commits.running = false }
                return batch
            }
            if batch.isEmpty { return }
            commit(batch)
        }
    }

    /// One locked read-modify-write for the whole batch (steps 1–7 of Protocol/store.md). Every
    /// write of the batch is acknowledged after the lock is released: with its own result if the
    /// replace was durable (or nothing needed writing), else with the replace's error.
    private func commit(_ batch: [any PendingWrite]) {
        var failure: StoreError?
        do throws(StoreError) {
            try FileSystem.makeDirectories(files.directory)
            let lock = try FileSystem.lockExclusively(files.lock)
            defer { FileSystem.unlock(lock) }
            try loading.withLock { (watchers: inout Watchers) throws(StoreError) in
                try refreshLocked(&watchers)
                var buffers = commits.withLock { commits in
                    defer { commits.spare = DocumentEdit.Buffers() }
                    return commits.spare
                }
                defer { commits.withLock { $0.spare = buffers } }
                guard let result = try edit(batch, into: &buffers) else { return }
                let (descriptor, identity) = try FileSystem.replaceDurably(
                    files.preferences, with: buffers.bytes, temporaryPath: files.temporary, directory: files.directory)
                let oldPin = cache.withLock { cache in
                    // The batch's edit (and its copy of the document) is gone: `index` changes in
                    // place, and the old bytes and entries go back to `buffers` for the next commit.
                    cache.document.apply(result, buffers: &buffers)
                    cache.identity = identity
                    defer { cache.pin = descriptor }
                    return cache.pin
                }
                if oldPin >= 0 { close(oldPin) }
                for queue in watchers.queues.values { queue.post(result.writtenKeys) }
            }
        } catch {
            failure = error
        }
        for request in batch { request.finish(failure) }
    }

    /// Applies the batch to the cached document, building the new file in `buffers`; `nil` when
    /// it wrote nothing.
    private func edit(_ batch: [any PendingWrite], into buffers: inout DocumentEdit.Buffers) throws(StoreError)
        -> DocumentEdit.Result? {
        var edit = DocumentEdit(base: cache.withLock { $0.document }, path: files.preferences)
        for request in batch { request.apply(to: &edit) }
        return edit.hasWrites ? try edit.result(into: &buffers) : nil
    }
}

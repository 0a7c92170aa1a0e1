import ChannelBridgePlatform
import Dispatch

/// Group commit: writes that wait for the group's lock are applied together in one locked
/// read-modify-write with one durable replace, and each is acknowledged only once that replace is
/// durable (Protocol/store.md, "Writing").
extension GroupEngine {
    /// Queues `change` and waits for its commit. The write takes its place in the queue before this
    /// function first suspends, so writes started one after another from one thread are applied in
    /// that order (what the plugin's program order relies on).
    @discardableResult
    func perform<T: Sendable>(
        _ description: String,
        _ change: @escaping @Sendable (inout DocumentEdit) -> T
    ) async throws(StoreError) -> T {
        let request = WriteRequest(description, change)
        // A task cancelled before its write is queued never queues it (and so never races the
        // committer for it).
        if Task.isCancelled { request.withdraw() } else { submit(request) }
        return try await request.result()
    }

    /// `perform` for a synchronous caller: waits on the calling thread, which must not be a thread
    /// of the concurrency pool (see `WriteRequest.blockingResult`).
    @discardableResult
    func performBlocking<T: Sendable>(
        _ description: String,
        _ change: @escaping @Sendable (inout DocumentEdit) -> T
    ) throws(StoreError) -> T {
        let request = WriteRequest(description, change)
        submit(request)
        return try request.blockingResult()
    }

    /// Appends a write to the queue and wakes the committer if it is idle (starting its thread if
    /// there is none). The semaphore is posted exactly when `running` goes from false to true, and
    /// each post is taken before the `drain` that sets it false again.
    func submit(_ request: any PendingWrite) {
        enum Wake { case none, post, startThread }
        let wake = commits.withLock { commits -> Wake in
            commits.pending.append(request)
            if commits.running { return .none }
            commits.running = true
            if commits.threadAlive { return .post }
            commits.threadAlive = true
            return .startThread
        }
        switch wake {
        case .none: break
        case .post: committerSignal.post()
        case .startThread:
            committerSignal.post()
            if DetachedThread.tryStart(name: threadName, { self.runCommitter() }) != 0 {
                // No thread to be had (the process is at its limit): a dispatch worker serves
                // as the committer instead, as one always did before.
                DispatchQueue.global().async { self.runCommitter() }
            }
        }
    }

    /// The committer thread: drains the queue whenever it is woken; ends after
    /// `committerIdleSeconds` with nothing to do (a later write starts another).
    private func runCommitter() {
        while true {
            if committerSignal.wait(seconds: Self.committerIdleSeconds) {
                drain()
                continue
            }
            let exit = commits.withLock { commits -> Bool in
                // Running means a post is on its way or already counted: wait for it.
                if commits.running { return false }
                commits.threadAlive = false
                return true
            }
            if exit { return }
        }
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
        var wakeups: Wakeups = []
        do throws(StoreError) {
            let lock = try FileSystem.lockExclusively(files.lock, creatingDirectory: files.directory)
            defer { FileSystem.unlock(lock) }
            try loading.withLock { (_: inout UInt8) throws(StoreError) in
                try refreshLocked(&wakeups)
                var buffers = commits.withLock { commits in
                    defer { commits.spare = DocumentEdit.Buffers() }
                    return commits.spare
                }
                defer { commits.withLock { $0.spare = buffers } }
                guard let result = try edit(batch, into: &buffers) else { return }
                // A file this store would refuse to read is never written.
                if buffers.bytes.count > maximumFileSize {
                    throw StoreError(
                        .fileTooLarge,
                        "preferences file '\(files.preferences)' would be larger than the maximum file size of \(maximumFileSize) bytes (\(buffers.bytes.count) bytes); nothing was written",
                        path: files.preferences)
                }
                let descriptor = try FileSystem.writeTemporary(buffers.bytes, at: files.temporary)
                // The file being replaced is let go before the rename, so the rename frees it at
                // once, as the C floor's replace does. Held open across the rename, it would become
                // an orphan inode there (on the file system's orphan list) and be freed by our
                // `close` after the directory `fsync`, on the acknowledgement's path: on ext4 that
                // `close` took 0.15-2.8 ms a write (strace -T, loaded machine).
                // From here until the new file is installed the cache vouches for nothing: its
                // identity's inode may be freed by the rename and given to another file, so a
                // read in this window takes the slow path and waits for this commit (a read after
                // the rename would anyway: the file's identity is no longer the cached one).
                let oldPin = cache.withLock { cache in
                    defer {
                        cache.pin = -1
                        cache.trusted = false
                    }
                    return cache.pin
                }
                if oldPin >= 0 { FileCalls.close(oldPin) }
                // On failure the cache stays untrusted: the file may or may not have been
                // replaced, and the next read or write reads it again.
                let identity = try FileSystem.install(
                    descriptor, temporaryPath: files.temporary,
                    as: files.preferences, directory: files.directory)
                cache.withLock { cache in
                    // The batch's edit (and its copy of the document) is gone: `index` changes in
                    // place, and the old bytes and entries go back to `buffers` for the next commit.
                    cache.document.apply(result, buffers: &buffers)
                    cache.identity = identity
                    cache.trusted = true
                    cache.pin = descriptor
                }
                queueChanges(result.writtenKeys, into: &wakeups)
                if let hook = commitHook.withLock({ $0 }) { hook() }
            }
        } catch {
            failure = error
        }
        for wakeup in wakeups { wakeup.resume() }
        for request in batch { request.finish(failure) }
    }

    /// Applies the batch to the cached document, building the new file in `buffers`; `nil` when
    /// it wrote nothing.
    private func edit(
        _ batch: [any PendingWrite], into buffers: inout DocumentEdit.Buffers
    ) throws(StoreError)
        -> DocumentEdit.Result?
    {
        var edit = DocumentEdit(base: cache.withLock { $0.document }, path: files.preferences)
        for request in batch { request.apply(to: &edit) }
        return edit.hasWrites ? try edit.result(into: &buffers) : nil
    }
}

import Synchronization

/// One `changes()` stream of a file-backed group. The directory watcher calls `refresh` whenever the
/// preferences file may have been replaced; the subscription reads it and reports what changed since
/// the document it last saw.
final class ChangeSubscription: Sendable {
    let files: GroupFiles
    let continuation: AsyncStream<StoreChange>.Continuation
    /// The document the stream last reported from; `nil` until the first read.
    private let baseline = Mutex<PreferencesDocument?>(nil)

    init(files: GroupFiles, continuation: AsyncStream<StoreChange>.Continuation) {
        self.files = files
        self.continuation = continuation
    }

    /// Reads the file and yields one change per key written since the last read.
    ///
    /// Reading and yielding happen under the lock so that two refreshes (the first one, run by
    /// `changes()`, and the watcher thread's) can never report an older file after a newer one.
    /// Neither the read nor `yield` calls back into this object. A file that cannot be read fails
    /// the first refresh (so `changes()` reports it) and is skipped later: the stream reports from
    /// the last good document once the file is readable again.
    func refresh(initial: Bool) throws(StoreError) {
        try baseline.withLock { (baseline: inout PreferencesDocument?) throws(StoreError) in
            let current: PreferencesDocument
            do throws(StoreError) {
                current = try files.read()
            } catch {
                if initial { throw error }
                return
            }
            if let previous = baseline {
                for change in current.changes(since: previous) { continuation.yield(change) }
            }
            baseline = current
        }
    }
}

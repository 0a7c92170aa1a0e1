import ChannelBridgePlatform
import ChannelBridgeCodec
import Dispatch

/// Everything this process keeps for one app group: the cached document, the writes waiting for
/// the group's lock (group commit), and the change streams. One per group per `AppGroupStore`.
///
/// Locks, always taken in this order: the group's `flock` (committer only), `loading` (held while
/// a document is read and installed and its changes are queued on the streams, so streams see
/// documents in the order they were installed), `streams` (the change streams' registry), a
/// stream's own `ChangeQueue` lock, then `cache` (held only for lookups and swaps, never across
/// I/O); `commits` (the write queue) and the process's `FreshnessWatch` are leaves. A read whose
/// cached document is current takes the freshness watch's lock, then `cache`.
///
/// Nothing is called under these locks: a change is queued under `loading`, and the consumer it
/// wakes is resumed once `loading` is released. A stream's end (its consumer's cancellation or
/// termination handler, which runs while the Swift runtime holds that task's lock) takes only
/// `streams` and the queue's lock, never `loading`, so it never waits for a commit's I/O.
///
/// Bounds: one cached document (and one spare pair of arrays for the next commit) and the values
/// read from it lately (`RecentValues`: at most 128, small ones, and 16 KiB of keys); the write
/// queue holds one entry per caller waiting for its write (the plugin's callers are bounded by the
/// messenger's in-flight requests), at most `maximumBatch` of them per commit.
final class GroupEngine: Sendable {
    let files: GroupFiles
    /// The committer's thread (started on the first write, ending after `committerIdleSeconds`
    /// without one): blocking `flock`, `write` and `fsync` never run on the cooperative pool.
    let threadName: String
    /// Wakes the group's committer thread. A thread of our own rather than a serial
    /// `DispatchQueue`: handing a write to an idle dispatch queue delays the committer's start by
    /// a noticeable share of a durable write (`channelbridge-bench prefs`); waking a parked
    /// thread costs a futex wake.
    let committerSignal = TimedSemaphore()
    static let committerIdleSeconds = 2

    struct Cache {
        /// A simple `didSet` (it reads no old value): a document changed in place is not copied.
        var document = StoredDocument.empty {
            didSet { generation &+= 1 }
        }
        /// Moves whenever `document` does, so that `recent` gives back only values read from
        /// this document.
        var generation: UInt64 = 0
        /// Values read from `document` lately, by their key's bytes.
        var recent = RecentValues()
        /// The identity of the file `document` was read from or written as; `nil` for no file.
        var identity: FileIdentity?
        var loaded = false
        /// That file, kept open so its inode is not reused while `identity` is relied on.
        var pin: Int32 = -1
        /// `false` while `pin` is let go: from just before a replace's `rename` until the new file
        /// is installed, and after a replace that failed there. `identity` then proves nothing
        /// (its inode may be reused), so reads take the slow path; after a failure the next one
        /// reads the file again (`document` stays the change streams' baseline).
        var trusted = true

        /// The group directory's watch (`FreshnessWatch`), once there is one.
        var watch: Int32?
        /// The watch's epoch read just before a `stat` that matched `identity`: while the epoch is
        /// still this, the file is still that one, and a read needs no `stat`.
        var cleanEpoch: UInt64?

        /// Whether `document` is the file whose identity a `stat` just gave.
        func isCurrent(_ identity: FileIdentity?) -> Bool {
            loaded && trusted && self.identity == identity
        }

        /// Whether `document` is the file, known without a `stat`: nothing changed since one matched.
        func isCurrent(atEpoch epoch: UInt64) -> Bool {
            loaded && trusted && cleanEpoch == epoch
        }
    }

    struct Watchers {
        var queues: [ObjectIdentifier: ChangeQueue<String>] = [:]
        /// Registered with `DirectoryWatcher` (while there are queues or subscriptions starting).
        var watching = false
        /// Subscriptions between starting the watch and adding their queue: the watch stays.
        var subscribing = 0
    }

    /// Consumers to wake once `loading` is released.
    typealias Wakeups = [ChangeQueue<String>.Wakeup]

    struct Commits {
        /// Writes in arrival order; withdrawn ones are skipped when a batch is taken.
        var pending: [any PendingWrite] = []
        var head = 0
        var running = false
        /// The committer thread exists (it may be waiting for `committerSignal`).
        var threadAlive = false
        /// The arrays the next commit builds the file in (the document's previous ones).
        var spare = DocumentEdit.Buffers()
    }

    let cache = LockedValue(Cache())
    /// Held while the cache is loaded or a commit's changes are queued; it guards no data. Its
    /// value has a size: a value of none would sit at the address ThreadSanitizer builds give the
    /// lock's own storage, and TSan would report each access under the lock as a race with it.
    let loading = LockedValue<UInt8>(0)
    let streams = LockedValue(Watchers())
    let commits = LockedValue(Commits())
    /// Called inside `loading` after a commit's changes are queued: lets a test hold a commit
    /// there. `nil` outside tests.
    let commitHook = LockedValue<(@Sendable () -> Void)?>(nil)

    /// At most this many writes go into one replace, so one commit's latency stays bounded however
    /// many writers queue up; the rest go into the next one at once.
    static let maximumBatch = 1_024

    /// Tells a cached read whether the file changed, without a `stat`.
    let freshness: FreshnessWatch

    /// The largest `preferences.json` read or written (`AppGroupStore.maximumFileSize`).
    let maximumFileSize: Int

    init(
        files: GroupFiles, threadName: String, freshness: FreshnessWatch = .shared,
        maximumFileSize: Int = AppGroupStore.defaultMaximumFileSize
    ) {
        self.files = files
        self.threadName = threadName
        self.maximumFileSize = maximumFileSize
        self.freshness = freshness
    }

    deinit {
        let (pin, watch) = cache.withLock { ($0.pin, $0.watch) }
        if pin >= 0 { FileCalls.close(pin) }
        if let watch { freshness.unwatch(watch) }
    }

    // MARK: Reading

    enum Lookup {
        /// The value's text in the cached document of that generation (`Cache.generation`).
        case current(ArraySlice<UInt8>?, generation: UInt64)
        case stale
    }

    /// The value a read of the key whose UTF-8 bytes are `key` left at hand (`remember`), when
    /// the freshness watch's `epoch`, read just before, proves without a `stat` that the cached
    /// document is still the file, and the value was read from that document: `.some(nil)` for a
    /// key with no value; `nil` otherwise (then `cachedValueText(forKey:epoch:)` tells). A hash
    /// of the bytes and one comparison.
    @inline(__always)
    func recentValue(forKeyUTF8 key: UnsafeRawBufferPointer, epoch: UInt64) -> StandardValue?? {
        cache.withLock { cache -> StandardValue?? in
            guard cache.isCurrent(atEpoch: epoch) else { return nil }
            return cache.recent.value(forKeyUTF8: key, generation: cache.generation)
        }
    }

    /// Remembers `value`, read for `key` from the document of `generation` (its text
    /// `textCount` bytes long), for `recentValue(forKeyUTF8:)`.
    func remember(_ value: StandardValue?, textCount: Int, forKey key: String, generation: UInt64) {
        guard textCount <= RecentValues.maximumTextLength else { return }
        cache.withLock { cache in
            guard cache.generation == generation else { return }
            cache.recent.remember(value, textCount: textCount, forKey: key, generation: generation)
        }
    }

    /// The value text of the key whose UTF-8 bytes are `key`, found by those bytes
    /// (`StoredDocument.valueText(forKeyUTF8:)`), and the cached document's generation, when the
    /// freshness watch's `epoch`, read just before, proves without a `stat` that the document is
    /// still the file; `nil` otherwise (then `cachedValueText(forKey:epoch:)` tells).
    func cachedValueText(forKeyUTF8 key: UnsafeRawBufferPointer, epoch: UInt64) -> FoundText? {
        cache.withLock { cache -> FoundText? in
            guard cache.isCurrent(atEpoch: epoch), let text = cache.document.valueText(forKeyUTF8: key) else {
                return nil
            }
            return FoundText(text: text, generation: cache.generation)
        }
    }

    /// A value's text in the cached document of `generation` (`Cache.generation`).
    struct FoundText {
        let text: ArraySlice<UInt8>
        let generation: UInt64
    }

    /// `key`'s value text from the cached document if that document is still the file's, on the
    /// caller's thread: a dictionary lookup, after one `read` of the freshness watch that finds
    /// no change since a `stat` matched the document, or else after one `stat(2)`.
    func cachedValueText(forKey key: String) throws(StoreError) -> Lookup {
        try cachedValueText(forKey: key, epoch: freshness.epoch())
    }

    /// `cachedValueText(forKey:)` with the freshness watch's epoch read by the caller just before
    /// (`nil`: none, the watch is unavailable).
    func cachedValueText(forKey key: String, epoch: UInt64?) throws(StoreError) -> Lookup {
        if let epoch {
            let found = cache.withLock { cache -> Lookup? in
                guard cache.isCurrent(atEpoch: epoch) else { return nil }
                return .current(cache.document.valueText(forKey: key), generation: cache.generation)
            }
            if let found { return found }
        }
        // The epoch is read before the `stat`: a change after it makes the epoch move on.
        let epoch = watchedEpoch()
        let identity = try FileSystem.identity(ofPath: files.preferences)
        return cache.withLock { cache in
            guard cache.isCurrent(identity) else { return .stale }
            if let epoch { cache.cleanEpoch = epoch }
            return .current(cache.document.valueText(forKey: key), generation: cache.generation)
        }
    }

    /// The freshness watch's epoch, once the group directory is watched: it is watched first (a
    /// change before the watch would raise no event). `nil` when it cannot be watched (it does
    /// not exist yet, or inotify is unavailable): then only a `stat` tells.
    private func watchedEpoch() -> UInt64? {
        if let watch = cache.withLock({ $0.watch }), let epoch = freshness.epoch(requiring: watch) { return epoch }
        guard let added = freshness.watch(files.directory) else { return nil }
        let previous = cache.withLock { cache in
            defer { cache.watch = added }
            return cache.watch
        }
        // Given back after the new one is taken: the same directory keeps the same watch.
        if let previous { freshness.unwatch(previous) }
        return freshness.epoch(requiring: added)
    }

    /// The document as the file is now, reading the file only if it changed. Blocks.
    func currentDocument() throws(StoreError) -> StoredDocument {
        try refresh()
        return cache.withLock { $0.document }
    }

    /// `key`'s value text as the file is now. Blocks.
    func currentValueText(forKey key: String) throws(StoreError) -> ArraySlice<UInt8>? {
        try refresh()
        return cache.withLock { $0.document.valueText(forKey: key) }
    }

    /// Makes the cache match the file, then wakes the streams it told of a change. Blocks.
    func refresh() throws(StoreError) {
        var wakeups: Wakeups = []
        defer { for wakeup in wakeups { wakeup.resume() } }
        try loading.withLock { (_: inout UInt8) throws(StoreError) in try refreshLocked(&wakeups) }
    }

    /// `key`'s value in the document installed last, without looking at the file (for change
    /// streams, which are told about every document installed).
    func installedValue(forKey key: String) -> StandardValue? {
        let text = cache.withLock { $0.document.valueText(forKey: key) }
        return text.flatMap { try? StoredDocument.decode($0, key: key, path: files.preferences) }
    }

    /// Makes the cache match the file: nothing when it does, else reads and installs the file,
    /// queueing what changed on the change streams; the caller holds `loading` and wakes
    /// `wakeups` after releasing it.
    func refreshLocked(_ wakeups: inout Wakeups) throws(StoreError) {
        let identity = try FileSystem.identity(ofPath: files.preferences)
        if cache.withLock({ $0.isCurrent(identity) }) { return }
        let document: StoredDocument
        var pin: Int32 = -1
        var openedIdentity: FileIdentity?
        if let opened = try FileSystem.openAndRead(
            files.preferences, what: "preferences file",
            maximumSize: maximumFileSize)
        {
            do {
                document = try DocumentScanner.document(from: opened.bytes, path: files.preferences)
            } catch {
                FileCalls.close(opened.descriptor)
                throw error
            }
            pin = opened.descriptor
            openedIdentity = opened.identity
        } else {
            document = .empty
        }
        // One swap: a reader sees the old file's identity with the old document, or the new with the new.
        let (old, wasLoaded, oldPin) = cache.withLock { cache in
            let replaced = (cache.document, cache.loaded, cache.pin)
            cache.document = document
            cache.identity = openedIdentity
            cache.loaded = true
            cache.trusted = true
            cache.pin = pin
            return replaced
        }
        if oldPin >= 0 { FileCalls.close(oldPin) }
        if wasLoaded && streams.withLock({ !$0.queues.isEmpty }) {
            queueChanges(document.changedKeys(since: old), into: &wakeups)
        }
    }

    /// Queues `keys` on every change stream, collecting the consumers to wake. Caller holds
    /// `loading`, so the streams get documents' changes in the order they were installed.
    func queueChanges(_ keys: [String], into wakeups: inout Wakeups) {
        guard !keys.isEmpty else { return }
        streams.withLock { watchers in
            for queue in watchers.queues.values {
                if let wakeup = queue.enqueue(keys) { wakeups.append(wakeup) }
            }
        }
    }
}

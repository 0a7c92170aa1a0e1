public import ChannelBridgeCodec
import ChannelBridgePlatform
import Dispatch

/// The preferences of one app group, kept in `<dataDirectory>/app-groups/<group>/preferences.json`
/// and shared with every other process that uses the same data directory.
///
/// Every write holds the group's lock file for its read-modify-write and returns only once the new
/// file is durable, so writers in different processes lose nothing and a crash loses nothing that
/// was acknowledged. Writes that wait for the lock at the same time, from any number of callers in
/// this process, are committed together: one locked read-modify-write and one durable replace for
/// all of them (group commit). Reads take no lock and answer from the document this process read
/// or wrote last, as long as the file is still that one: an inotify watch on the group directory
/// that saw no change since a `stat` said so, or else one more `stat`.
///
/// ```swift
/// let prefs = try AppGroupStore(dataDirectory: "/tmp/data").group("group.com.example.app")
/// try await prefs.set(.int32(3), forKey: "count")
/// try await prefs.appendToList(key: "itemList", values: ["new item"])
/// let items = try await prefs.take(key: "itemList")   // import and clear in one step
/// ```
public struct AppGroupPreferences: PreferenceStore {
    /// The app group identifier.
    public let appGroup: String
    let engine: GroupEngine

    init(appGroup: String, engine: GroupEngine) {
        self.appGroup = appGroup
        self.engine = engine
    }

    var files: GroupFiles { engine.files }

    /// The group's directory, `<dataDirectory>/app-groups/<group>`.
    public var directory: String { files.directory }
    /// The group's preferences file.
    public var preferencesFile: String { files.preferences }

    /// The group's shared container directory (`…/container`), created if missing.
    public func containerDirectory() async throws(StoreError) -> String {
        let files = files
        return try await BlockingThreadPool.fileWork.run { () throws(StoreError) -> String in
            try FileSystem.makeDirectories(files.container)
            return files.container
        }
    }

    /// The value under `key`. When the cached document is still the file (see above), this
    /// answers on the calling thread without suspending; otherwise the file is read again on the
    /// process's file-work threads.
    public func value(forKey key: String) async throws(StoreError) -> StandardValue? {
        if case .known(let value) = try cachedValue(forKey: key) { return value }
        let path = files.preferences
        let engine = engine
        let text = try await BlockingThreadPool.fileWork.run { () throws(StoreError) in
            try engine.currentValueText(forKey: key)
        }
        return try text.map { text throws(StoreError) in try StoredDocument.decode(text, key: key, path: path) }
    }

    public func allValues() async throws(StoreError) -> [PreferenceEntry] {
        let engine = engine
        return try await BlockingThreadPool.fileWork.run { () throws(StoreError) in
            try engine.currentDocument().allValues(path: engine.files.preferences)
        }
    }

    public func set(_ value: StandardValue?, forKey key: String) async throws(StoreError) {
        let text = try value.map { value throws(StoreError) in try ValueCheck.encoded(value, forKey: key) }
        try await engine.perform(value == nil ? "remove of '\(key)'" : "set of '\(key)'") { edit in
            edit.set(key, text: text)
        }
    }

    public func remove(_ key: String) async throws(StoreError) {
        try await set(nil, forKey: key)
    }

    public func removeAll() async throws(StoreError) {
        try await engine.perform("removeAll") { edit in edit.removeAll() }
    }

    @discardableResult
    public func update(
        key: String, _ transform: @escaping @Sendable (StandardValue?) throws -> StandardValue?
    ) async throws -> StandardValue? {
        let outcome = try await engine.perform("update of '\(key)'") { edit in
            ValueCheck.update(&edit, key: key, transform)
        }
        return try outcome.get()
    }

    public func take(key: String) async throws(StoreError) -> StandardValue? {
        let outcome = try await engine.perform("take of '\(key)'") { edit -> Result<StandardValue?, StoreError> in
            do throws(StoreError) {
                guard let old = try edit.value(forKey: key) else { return .success(nil) }
                edit.set(key, text: nil)
                return .success(old)
            } catch {
                return .failure(error)
            }
        }
        return try outcome.get()
    }

    public func take(key: String, requestID: String) async throws(StoreError) -> StandardValue? {
        try TakeReceipts.check(id: requestID)
        let outcome = try await engine.perform("take of '\(key)'") { edit -> Result<StandardValue?, StoreError> in
            do throws(StoreError) {
                return .success(try edit.take(key, requestID: requestID))
            } catch {
                return .failure(error)
            }
        }
        return try outcome.get()
    }

    /// A stream of every change to the group after this call returns. Changes the consumer has not
    /// taken yet are kept per key (each key once, with its latest value when taken), so a slow
    /// consumer costs memory for the keys changed, not for the writes.
    public func changes() async throws(StoreError) -> AsyncStream<StoreChange> {
        let engine = engine
        let queue = try await BlockingThreadPool.fileWork.run { () throws(StoreError) in try engine.subscribe()
        }
        let subscription = ChangeStreamSubscription(queue: queue) { engine.unsubscribe(queue) }
        return AsyncStream(
            unfolding: {
                guard let key = await subscription.queue.next() else {
                    subscription.end()
                    return nil
                }
                return StoreChange(key: key, value: engine.installedValue(forKey: key))
            },
            onCancel: {
                subscription.end()
            })
    }
}

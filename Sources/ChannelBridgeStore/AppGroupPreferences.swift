import ChannelBridgeCodec
import Dispatch

/// The preferences of one app group, kept in `<dataDirectory>/app-groups/<group>/preferences.json`
/// and shared with every other process that uses the same data directory.
///
/// Every write holds the group's lock file for its read-modify-write and returns only once the new
/// file is durable, so writers in different processes lose nothing and a crash loses nothing that
/// was acknowledged. Reads take no lock and always see a complete file.
///
/// ```swift
/// let prefs = try AppGroupStore(dataDirectory: "/tmp/data").group("group.com.example.app")
/// try await prefs.set(.int32(3), forKey: "count")
/// try await prefs.update(key: "itemList") { old in
///     guard case .list(let items)? = old else { return .list(["new item"]) }
///     return .list(items + ["new item"])
/// }
/// ```
public struct AppGroupPreferences: PreferenceStore {
    /// The app group identifier.
    public let appGroup: String
    let files: GroupFiles
    /// Serialises this store's own writes, so at most one of its threads waits on the lock.
    let writeQueue: DispatchQueue

    init(appGroup: String, directory: String, writeQueue: DispatchQueue) {
        self.appGroup = appGroup
        self.files = GroupFiles(directory: directory)
        self.writeQueue = writeQueue
    }

    /// The group's directory, `<dataDirectory>/app-groups/<group>`.
    public var directory: String { files.directory }
    /// The group's preferences file.
    public var preferencesFile: String { files.preferences }

    /// The group's shared container directory (`…/container`), created if missing.
    public func containerDirectory() async throws(StoreError) -> String {
        let files = files
        return try await BlockingIO.run(on: BlockingIO.readQueue) { () throws(StoreError) -> String in
            try FileSystem.makeDirectories(files.container)
            return files.container
        }
    }

    public func value(forKey key: String) async throws(StoreError) -> StandardValue? {
        try await readDocument().values[key]
    }

    public func allValues() async throws(StoreError) -> [PreferenceEntry] {
        try await readDocument().values.entries
    }

    public func set(_ value: StandardValue?, forKey key: String) async throws(StoreError) {
        if let value { try ValueCheck.validate(value, forKey: key) }
        try await modify { values in
            if value == nil && values[key] == nil { return .init(writtenKeys: [], result: ()) }
            values[key] = value
            return .init(writtenKeys: [key], result: ())
        }
    }

    public func remove(_ key: String) async throws(StoreError) {
        try await set(nil, forKey: key)
    }

    public func removeAll() async throws(StoreError) {
        try await modify { values in .init(writtenKeys: values.removeAll(), result: ()) }
    }

    @discardableResult
    public func update(
        key: String, _ transform: @escaping @Sendable (StandardValue?) throws -> StandardValue?
    ) async throws -> StandardValue? {
        let outcome: Result<StandardValue?, any Error> = try await modify { values in
            let (written, result) = ValueCheck.update(&values, key: key, transform)
            return .init(writtenKeys: written, result: result)
        }
        return try outcome.get()
    }

    public func take(key: String) async throws(StoreError) -> StandardValue? {
        try await modify { values in
            guard let old = values[key] else { return .init(writtenKeys: [], result: nil) }
            values[key] = nil
            return .init(writtenKeys: [key], result: old)
        }
    }

    public func changes() async throws(StoreError) -> AsyncStream<StoreChange> {
        let (stream, continuation) = AsyncStream.makeStream(of: StoreChange.self, bufferingPolicy: .unbounded)
        let subscription = ChangeSubscription(files: files, continuation: continuation)
        continuation.onTermination = { _ in DirectoryWatcher.shared.remove(subscription) }
        do {
            try await BlockingIO.run(on: BlockingIO.readQueue) { () throws(StoreError) in
                try FileSystem.makeDirectories(subscription.files.directory)
                try DirectoryWatcher.shared.add(subscription)
                // The watch exists before the baseline is read, so no write falls between the two.
                try subscription.refresh(initial: true)
            }
        } catch {
            continuation.finish()
            throw error
        }
        return stream
    }

    private func readDocument() async throws(StoreError) -> PreferencesDocument {
        let files = files
        return try await BlockingIO.run(on: BlockingIO.readQueue) { () throws(StoreError) in try files.read() }
    }

    private func modify<Value: Sendable>(
        _ change: @escaping @Sendable (inout OrderedValues) -> GroupFiles.Outcome<Value>
    ) async throws(StoreError) -> Value {
        let files = files
        return try await BlockingIO.run(on: writeQueue) { () throws(StoreError) in try files.modify(change) }
    }
}

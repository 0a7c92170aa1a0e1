import ChannelBridgeCodec
import ChannelBridgePlatform
import ChannelBridgeStore
import ChannelBridgeTestSupport

/// An in-memory group whose operations on chosen keys wait for a gate, and which logs when each
/// operation starts and ends: for tests of the order in which the plugin calls the store. Reads of
/// other keys may be answered at once (`CachedPreferenceReading`), as the file store answers them.
final class GatedStore: PreferenceStore, PreferenceStoreProvider, CachedPreferenceReading {
    let base = InMemoryPreferenceStore()
    /// Keys whose operations wait for `gate` (after logging their start).
    let heldKeys: Set<String>
    let gate = Gate()
    /// "set a", "get a", … as each operation starts; "… done" as it ends.
    let log = LockedValue<[String]>([])
    /// The same starts, for a test that waits for one.
    let started = Inbox<String>()

    init(holding heldKeys: Set<String>) {
        self.heldKeys = heldKeys
    }

    var entries: [String] { log.withLock { $0 } }

    func preferences(forAppGroup appGroup: String) throws(StoreError) -> any PreferenceStore { self }

    private func around<T>(_ name: String, _ key: String?, _ body: () async throws -> T) async rethrows -> T {
        let entry = key.map { "\(name) \($0)" } ?? name
        log.withLock { $0.append(entry) }
        started.put(entry)
        if let key, heldKeys.contains(key) { await gate.wait() }
        defer { log.withLock { $0.append(entry + " done") } }
        return try await body()
    }

    /// For each read answered at once, whether it ran inside a task.
    private let cachedReadsInATask = LockedValue<[Bool]>([])
    var cachedReadsRanInATask: [Bool] { cachedReadsInATask.withLock { $0 } }

    func cachedValue(forKey key: String) throws(StoreError) -> CachedValue {
        if heldKeys.contains(key) { return .unknown }
        log.withLock { $0 += ["get \(key) at once"] }
        let inTask = withUnsafeCurrentTask { $0 != nil }
        cachedReadsInATask.withLock { $0.append(inTask) }
        return try base.cachedValue(forKey: key)
    }

    func value(forKey key: String) async throws(StoreError) -> StandardValue? {
        do { return try await around("get", key) { try await base.value(forKey: key) } } catch {
            throw error as! StoreError
        }
    }

    func allValues() async throws(StoreError) -> [PreferenceEntry] {
        do { return try await around("getAll", nil) { try await base.allValues() } } catch {
            throw error as! StoreError
        }
    }

    func set(_ value: StandardValue?, forKey key: String) async throws(StoreError) {
        do { try await around("set", key) { try await base.set(value, forKey: key) } } catch {
            throw error as! StoreError
        }
    }

    func remove(_ key: String) async throws(StoreError) {
        do { try await around("remove", key) { try await base.remove(key) } } catch { throw error as! StoreError }
    }

    func removeAll() async throws(StoreError) {
        do { try await around("removeAll", nil) { try await base.removeAll() } } catch { throw error as! StoreError }
    }

    func take(key: String) async throws(StoreError) -> StandardValue? {
        do { return try await around("take", key) { try await base.take(key: key) } } catch {
            throw error as! StoreError
        }
    }

    func update(
        key: String, _ transform: @escaping @Sendable (StandardValue?) throws -> StandardValue?
    ) async throws
        -> StandardValue?
    {
        try await around("update", key) { try await base.update(key: key, transform) }
    }

    func changes() async throws(StoreError) -> AsyncStream<StoreChange> { try await base.changes() }
}

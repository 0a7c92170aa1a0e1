import ChannelBridgeCodec
import ChannelBridgeStore
import ChannelBridgeTestSupport
import Synchronization

/// In-memory app groups that report when a change stream of a group starts and ends, so that a
/// test knows when a listen is subscribed (and writes from then on are seen) and when a cancel
/// reached the store.
final class ObservedStoreProvider: PreferenceStoreProvider {
    enum Signal: Sendable, Equatable {
        case subscribed(String)
        case ended(String)
    }

    let base = InMemoryAppGroupStore()
    let signals = Inbox<Signal>()

    func preferences(forAppGroup appGroup: String) throws(StoreError) -> any PreferenceStore {
        ObservedStore(group: appGroup, base: try base.group(appGroup), signals: signals)
    }

    /// The store behind `appGroup`, for writing or checking without the plugin.
    func group(_ appGroup: String) throws -> InMemoryPreferenceStore {
        try base.group(appGroup)
    }
}

struct ObservedStore: PreferenceStore {
    let group: String
    let base: InMemoryPreferenceStore
    let signals: Inbox<ObservedStoreProvider.Signal>

    func value(forKey key: String) async throws(StoreError) -> StandardValue? { try await base.value(forKey: key) }
    func allValues() async throws(StoreError) -> [PreferenceEntry] { try await base.allValues() }
    func set(_ value: StandardValue?, forKey key: String) async throws(StoreError) {
        try await base.set(value, forKey: key)
    }
    func remove(_ key: String) async throws(StoreError) { try await base.remove(key) }
    func removeAll() async throws(StoreError) { try await base.removeAll() }
    func take(key: String) async throws(StoreError) -> StandardValue? { try await base.take(key: key) }

    func update(
        key: String, _ transform: @escaping @Sendable (StandardValue?) throws -> StandardValue?
    ) async throws
        -> StandardValue?
    {
        try await base.update(key: key, transform)
    }

    func changes() async throws(StoreError) -> AsyncStream<StoreChange> {
        let inner = try await base.changes()
        let (stream, continuation) = AsyncStream.makeStream(of: StoreChange.self)
        let pump = Task {
            for await change in inner { continuation.yield(change) }
            continuation.finish()
        }
        let (group, signals) = (self.group, self.signals)
        continuation.onTermination = { _ in
            pump.cancel()
            signals.put(.ended(group))
        }
        signals.put(.subscribed(group))
        return stream
    }
}

/// A store whose file is corrupt: every operation fails as `AppGroupPreferences` does then.
struct CorruptPreferenceStore: PreferenceStore {
    static let path = "/data/app-groups/group.local/preferences.json"
    static let error = StoreError(
        .corruptFile, "The preferences file \(path) is corrupt: not JSON at byte 0", path: path)

    func value(forKey key: String) async throws(StoreError) -> StandardValue? { throw Self.error }
    func allValues() async throws(StoreError) -> [PreferenceEntry] { throw Self.error }
    func set(_ value: StandardValue?, forKey key: String) async throws(StoreError) { throw Self.error }
    func remove(_ key: String) async throws(StoreError) { throw Self.error }
    func removeAll() async throws(StoreError) { throw Self.error }
    func take(key: String) async throws(StoreError) -> StandardValue? { throw Self.error }
    func changes() async throws(StoreError) -> AsyncStream<StoreChange> { throw Self.error }

    func update(
        key: String, _ transform: @escaping @Sendable (StandardValue?) throws -> StandardValue?
    ) async throws
        -> StandardValue?
    {
        throw Self.error
    }
}

struct CorruptStoreProvider: PreferenceStoreProvider {
    func preferences(forAppGroup appGroup: String) throws(StoreError) -> any PreferenceStore {
        CorruptPreferenceStore()
    }
}

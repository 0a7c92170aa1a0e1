import ChannelBridgeCodec
import Synchronization

/// Preferences kept in memory, with the same behaviour as `AppGroupPreferences` but no files: for
/// unit tests of code written against `PreferenceStore`.
///
/// Every write reports its changes to every stream at once (no coalescing), in write order.
///
/// ```swift
/// let store = InMemoryPreferenceStore([PreferenceEntry(key: "ShareKey", value: "shared text")])
/// let changes = try await store.changes()
/// try await store.set(nil, forKey: "ShareKey")   // `changes` yields ShareKey = null
/// ```
public final class InMemoryPreferenceStore: PreferenceStore {
    private struct State {
        var values = OrderedValues()
        var streams: [UInt64: AsyncStream<StoreChange>.Continuation] = [:]
        var nextStreamID: UInt64 = 0
    }

    private let state: Mutex<State>

    public init(_ entries: [PreferenceEntry] = []) {
        state = Mutex(State(values: OrderedValues(entries)))
    }

    public func value(forKey key: String) async throws(StoreError) -> StandardValue? {
        state.withLock { $0.values[key] }
    }

    public func allValues() async throws(StoreError) -> [PreferenceEntry] {
        state.withLock { $0.values.entries }
    }

    public func set(_ value: StandardValue?, forKey key: String) async throws(StoreError) {
        if let value { try ValueCheck.validate(value, forKey: key) }
        modify { values in
            if value == nil && values[key] == nil { return ([], ()) }
            values[key] = value
            return ([key], ())
        }
    }

    public func remove(_ key: String) async throws(StoreError) {
        try await set(nil, forKey: key)
    }

    public func removeAll() async throws(StoreError) {
        modify { values in (values.removeAll(), ()) }
    }

    @discardableResult
    public func update(
        key: String, _ transform: @escaping @Sendable (StandardValue?) throws -> StandardValue?
    ) async throws -> StandardValue? {
        let outcome: Result<StandardValue?, any Error> = modify { values in
            ValueCheck.update(&values, key: key, transform)
        }
        return try outcome.get()
    }

    public func take(key: String) async throws(StoreError) -> StandardValue? {
        modify { values in
            guard let old = values[key] else { return ([], nil) }
            values[key] = nil
            return ([key], old)
        }
    }

    public func changes() async throws(StoreError) -> AsyncStream<StoreChange> {
        let (stream, continuation) = AsyncStream.makeStream(of: StoreChange.self, bufferingPolicy: .unbounded)
        let id = state.withLock { state in
            defer { state.nextStreamID += 1 }
            state.streams[state.nextStreamID] = continuation
            return state.nextStreamID
        }
        continuation.onTermination = { [weak self] _ in
            _ = self?.state.withLock { $0.streams.removeValue(forKey: id) }
        }
        return stream
    }

    /// Applies a change and reports the keys it wrote. Changes are yielded under the lock so that
    /// every stream sees writes in the order they were made; `yield` never calls back into the store.
    private func modify<T>(_ change: (inout OrderedValues) -> (written: [String], result: T)) -> T {
        state.withLock { state in
            let (written, result) = change(&state.values)
            for key in written {
                let event = StoreChange(key: key, value: state.values[key])
                for continuation in state.streams.values { continuation.yield(event) }
            }
            return result
        }
    }
}

/// In-memory app groups: one `InMemoryPreferenceStore` per group name, created on first use.
public final class InMemoryAppGroupStore: PreferenceStoreProvider {
    private let groups = Mutex<[String: InMemoryPreferenceStore]>([:])

    public init() {}

    public func group(_ appGroup: String) throws(StoreError) -> InMemoryPreferenceStore {
        try AppGroupStore.validate(groupName: appGroup)
        return groups.withLock { groups in
            if let store = groups[appGroup] { return store }
            let store = InMemoryPreferenceStore()
            groups[appGroup] = store
            return store
        }
    }

    public func preferences(forAppGroup appGroup: String) throws(StoreError) -> any PreferenceStore {
        try group(appGroup)
    }
}

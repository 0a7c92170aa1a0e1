public import ChannelBridgeCodec
import ChannelBridgePlatform

/// Preferences kept in memory, with the same behaviour as `AppGroupPreferences` but no files: for
/// unit tests of code written against `PreferenceStore`.
///
/// Every write reports its changes to every stream at once, each change separately, in write
/// order, as long as a stream's consumer is at most 10,000 changes behind; beyond that the
/// stream coalesces per key (one change per key with its latest value) until the consumer has
/// caught up, so memory stays bounded.
///
/// ```swift
/// let store = InMemoryPreferenceStore([PreferenceEntry(key: "ShareKey", value: "shared text")])
/// let changes = try await store.changes()
/// try await store.set(nil, forKey: "ShareKey")   // `changes` yields ShareKey = null
/// ```
public final class InMemoryPreferenceStore: PreferenceStore {
    private struct State {
        var values = OrderedValues()
        var streams: [ObjectIdentifier: ChangeQueue<StoreChange>] = [:]
        /// The latest takes made with a request id, oldest first (as the file store keeps them).
        var receipts: [(id: String, value: StandardValue)] = []
    }

    private let state: LockedValue<State>
    /// How far behind a stream's consumer may fall before its changes are coalesced per key.
    static let exactChanges = 10_000

    public init(_ entries: [PreferenceEntry] = []) {
        state = LockedValue(State(values: OrderedValues(entries)))
    }

    public func value(forKey key: String) async throws(StoreError) -> StandardValue? {
        currentValue(forKey: key)
    }

    func currentValue(forKey key: String) -> StandardValue? {
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

    public func take(key: String, requestID: String) async throws(StoreError) -> StandardValue? {
        try TakeReceipts.check(id: requestID)
        let (taken, wakeups) = state.withLock { state -> (StandardValue?, [ChangeQueue<StoreChange>.Wakeup]) in
            if let receipt = state.receipts.last(where: { CodeUnitString.equal($0.id, requestID) }) {
                return (receipt.value, [])
            }
            guard let old = state.values[key] else { return (nil, []) }
            state.values[key] = nil
            state.receipts.append((requestID, old))
            if state.receipts.count > TakeReceipts.maximumCount { state.receipts.removeFirst() }
            let change = [StoreChange(key: key, value: nil)]
            return (old, state.streams.values.compactMap { $0.enqueue(change) })
        }
        for wakeup in wakeups { wakeup.resume() }
        return taken
    }

    public func changes() async throws(StoreError) -> AsyncStream<StoreChange> {
        let queue = ChangeQueue<StoreChange>(exactLimit: Self.exactChanges)
        state.withLock { $0.streams[ObjectIdentifier(queue)] = queue }
        let subscription = ChangeStreamSubscription(queue: queue) { [weak self] in
            queue.finish()
            _ = self?.state.withLock { $0.streams.removeValue(forKey: ObjectIdentifier(queue)) }
        }
        return AsyncStream(
            unfolding: {
                guard let change = await subscription.queue.next() else {
                    subscription.end()
                    return nil
                }
                return change
            },
            onCancel: {
                subscription.end()
            })
    }

    /// Applies a change and reports the keys it wrote. Changes are queued under the lock, so that
    /// every stream sees writes in the order they were made, and the consumers they wake are
    /// resumed after it is released: a stream's end (which takes this lock) never waits for a
    /// writer that is resuming a consumer.
    private func modify<T>(_ change: (inout OrderedValues) -> (written: [String], result: T)) -> T {
        let (result, wakeups) = state.withLock { state -> (T, [ChangeQueue<StoreChange>.Wakeup]) in
            let (written, result) = change(&state.values)
            guard !written.isEmpty else { return (result, []) }
            let changes = written.map { StoreChange(key: $0, value: state.values[$0]) }
            return (result, state.streams.values.compactMap { $0.enqueue(changes) })
        }
        for wakeup in wakeups { wakeup.resume() }
        return result
    }
}

/// In-memory app groups: one `InMemoryPreferenceStore` per group name, created on first use.
public final class InMemoryAppGroupStore: PreferenceStoreProvider {
    /// Group names are told apart by code units, as directory names are.
    private let groups = LockedValue<[CodeUnitString: InMemoryPreferenceStore]>([:])

    public init() {}

    public func group(_ appGroup: String) throws(StoreError) -> InMemoryPreferenceStore {
        try AppGroupStore.validate(groupName: appGroup)
        return groups.withLock { groups in
            if let store = groups[CodeUnitString(appGroup)] { return store }
            let store = InMemoryPreferenceStore()
            groups[CodeUnitString(appGroup)] = store
            return store
        }
    }

    public func preferences(forAppGroup appGroup: String) throws(StoreError) -> any PreferenceStore {
        try group(appGroup)
    }
}

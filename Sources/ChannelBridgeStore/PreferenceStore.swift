public import ChannelBridgeCodec

/// One app group's preferences: typed values under string keys, shared by every user of the group.
///
/// `AppGroupPreferences` keeps them in files that several processes share; `InMemoryPreferenceStore`
/// keeps them in memory for unit tests. Code that only needs preferences (the
/// `shared_preference_app_group` plugin) should depend on this protocol.
///
/// **Order.** A write takes its place among the group's writes before its call first suspends, so
/// writes whose calls start one after another on one thread are applied in that order (the
/// plugin keeps a session's calls in arrival order on top of this). A write whose task is cancelled
/// while it still waits for the group is withdrawn: nothing is written and it throws
/// `StoreError.cancelled`; a write already being committed finishes.
///
/// ```swift
/// func importSharedItems(from store: some PreferenceStore) async throws -> [StandardValue] {
///     guard case .list(let items)? = try await store.take(key: "itemList") else { return [] }
///     return items
/// }
/// ```
public protocol PreferenceStore: Sendable {
    /// The value stored under `key`, or `nil` when there is none.
    func value(forKey key: String) async throws(StoreError) -> StandardValue?

    /// Every stored key and value, in the order the keys were first stored.
    func allValues() async throws(StoreError) -> [PreferenceEntry]

    /// Stores `value` under `key`; `nil` removes the key. Returns once the write is durable.
    func set(_ value: StandardValue?, forKey key: String) async throws(StoreError)

    /// Removes `key`. Removing a key that is not there writes nothing and reports no change.
    func remove(_ key: String) async throws(StoreError)

    /// Removes every key, reporting one change per key removed.
    func removeAll() async throws(StoreError)

    /// Atomically replaces the value under `key` with `transform(current)`; a `nil` result removes
    /// the key. No other writer, in this process or another, writes the group in between.
    ///
    /// - Returns: the value now stored (`nil` when the key is absent).
    /// - Throws: `StoreError`, or whatever `transform` threw (then nothing is written).
    /// - Note: `transform` runs while the group is locked: keep it short and do not wait on the store.
    @discardableResult
    func update(
        key: String, _ transform: @escaping @Sendable (StandardValue?) throws -> StandardValue?
    ) async throws -> StandardValue?

    /// Reads and removes `key` in one step: a value written by another writer is either returned
    /// here or still stored afterwards, never lost in between.
    func take(key: String) async throws(StoreError) -> StandardValue?

    /// `take(key:)` that can be retried: the value taken is recorded under `requestID` in the same
    /// atomic write that removes it, and a take with the same `requestID` while the record is kept
    /// (the group's last 32 such takes) returns that value again and removes nothing. A caller
    /// whose reply was lost retries with the same id and gets each item exactly once. An absent
    /// key records nothing (a retry takes afresh). `requestID` is 1 to 128 bytes of UTF-8
    /// (`invalidValue` otherwise), unique per take, e.g. a UUID.
    func take(key: String, requestID: String) async throws(StoreError) -> StandardValue?

    /// Appends each of `values` to the list under `key` in one atomic step, creating the list when
    /// the key is absent: appenders in any number of processes lose no item. Throws `.wrongType`
    /// (and writes nothing) when the key holds something other than a list.
    func appendToList(key: String, values: [StandardValue]) async throws(StoreError)

    /// A stream of every change made to the group after this call returns, by this process or any
    /// other. Changes to one key made in quick succession may arrive as one change carrying the
    /// latest value; a change is never missed. Changes not yet taken are kept once per key, so a
    /// consumer that falls behind costs memory for the keys changed, never for the number of
    /// writes. The stream ends when the consumer stops iterating.
    func changes() async throws(StoreError) -> AsyncStream<StoreChange>
}

extension PreferenceStore {
    /// A store that keeps no receipts takes afresh: at most once, so a retry after a lost reply
    /// returns nothing of what the first take removed. Both stores of this module keep receipts.
    public func take(key: String, requestID: String) async throws(StoreError) -> StandardValue? {
        try await take(key: key)
    }

    /// `appendToList` as an `update` of the key: what every store does unless it has a faster way.
    public func appendToList(key: String, values: [StandardValue]) async throws(StoreError) {
        do {
            try await update(key: key) { old in try ListAppend.appending(values, to: old, key: key) }
        } catch let error as StoreError {
            throw error
        } catch {
            // The transform throws only StoreError; a store's own failures are StoreErrors too.
            throw StoreError(.io, "appendToList of '\(key)' failed: \(error)")
        }
    }
}

/// The rule of `appendToList`, shared by every store.
enum ListAppend {
    static func appending(
        _ values: [StandardValue], to old: StandardValue?, key: String
    ) throws(StoreError) -> StandardValue {
        switch old {
        case nil:
            return .list(values)
        case .list(let items)?:
            return .list(items + values)
        case let other?:
            throw StoreError(.wrongType, "cannot append to key '\(key)': it holds \(other.dartTypeName), not a List")
        }
    }
}

/// Hands out the preferences of an app group by its identifier (`group.com.example.app`).
public protocol PreferenceStoreProvider: Sendable {
    /// The preferences of `appGroup`; throws `.invalidGroupName` for a name that cannot be a group.
    func preferences(forAppGroup appGroup: String) throws(StoreError) -> any PreferenceStore
}

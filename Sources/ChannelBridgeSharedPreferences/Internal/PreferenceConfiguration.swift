import ChannelBridgeCodec
import ChannelBridgeStore

/// What the host gave the plugin, shared by a session's method handler and change stream.
struct PreferenceConfiguration: Sendable {
    let provider: (any PreferenceStoreProvider)?
    let entitledAppGroups: [String]

    /// The group a session starts with: the only entitled one, if there is exactly one.
    var defaultAppGroup: String? {
        entitledAppGroups.count == 1 ? entitledAppGroups[0] : nil
    }

    /// Refuses a group the host is not entitled to. Names match by code units only: a canonically
    /// equivalent spelling of an entitled group is another directory, and is not entitled.
    func checkEntitled(_ appGroup: String) throws(MethodError) {
        guard entitledAppGroups.contains(where: { CodeUnitString.equal($0, appGroup) }) else {
            throw PreferenceErrors.notEntitled(appGroup, entitled: entitledAppGroups)
        }
    }

    /// The preferences of `appGroup`, or the error a caller gets when there are none to be had.
    func store(for appGroup: String) throws(MethodError) -> any PreferenceStore {
        guard let provider else { throw PreferenceErrors.storeUnavailable() }
        do {
            return try provider.preferences(forAppGroup: appGroup)
        } catch {
            throw PreferenceErrors.store(error)
        }
    }
}

/// Runs a store operation, turning its `StoreError` into the plugin's `STORE_ERROR`.
func storeCall<T>(_ body: () async throws(StoreError) -> T) async throws(MethodError) -> T {
    do {
        return try await body()
    } catch {
        throw PreferenceErrors.store(error)
    }
}

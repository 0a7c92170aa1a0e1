package import ChannelBridgeCodec

/// A store that can sometimes answer a read at once, without suspending: the fast path the
/// `shared_preference_app_group` plugin takes for a get when nothing of its session is pending.
package protocol CachedPreferenceReading: Sendable {
    /// The value under `key` if it is known without waiting (`.known`), else `.unknown`: then
    /// call `value(forKey:)`. Blocks for no more than a non-blocking `read` of an inotify
    /// descriptor and one `stat(2)`.
    func cachedValue(forKey key: String) throws(StoreError) -> CachedValue
}

package enum CachedValue: Sendable {
    /// The key's value now (`nil`: absent).
    case known(StandardValue?)
    /// Not known without reading the file.
    case unknown
}

extension AppGroupPreferences: CachedPreferenceReading {
    package func cachedValue(forKey key: String) throws(StoreError) -> CachedValue {
        guard case .current(let text) = try engine.cachedValueText(forKey: key) else { return .unknown }
        let path = files.preferences
        return .known(try text.map { text throws(StoreError) in try StoredDocument.decode(text, key: key, path: path) })
    }
}

extension InMemoryPreferenceStore: CachedPreferenceReading {
    package func cachedValue(forKey key: String) throws(StoreError) -> CachedValue {
        .known(currentValue(forKey: key))
    }
}

package import ChannelBridgeCodec

/// A store that can sometimes answer a read at once, without suspending: the fast path the
/// `shared_preference_app_group` plugin takes for a get when nothing of its session is pending.
package protocol CachedPreferenceReading: Sendable {
    /// The value under `key` if it is known without waiting (`.known`), else `.unknown`: then
    /// call `value(forKey:)`. Blocks for no more than a non-blocking `read` of an inotify
    /// descriptor and one `stat(2)`.
    func cachedValue(forKey key: String) throws(StoreError) -> CachedValue

    /// The value under the key whose UTF-8 bytes are `key`, when an earlier read of that key left
    /// it at hand and it is still the key's value (`.known`), else `.unknown`: then call
    /// `cachedValue(forKey:)` with the key as a `String`. Cheaper than that when it answers: no
    /// `String` is built, and no `stat` is taken. Blocks for no more than a non-blocking `read` of
    /// an inotify descriptor.
    func recentValue(forKeyUTF8 key: UnsafeRawBufferPointer) -> CachedValue
}

extension CachedPreferenceReading {
    package func recentValue(forKeyUTF8 key: UnsafeRawBufferPointer) -> CachedValue { .unknown }
}

package enum CachedValue: Sendable {
    /// The key's value now (`nil`: absent).
    case known(StandardValue?)
    /// Not known without reading the file.
    case unknown
}

extension AppGroupPreferences: CachedPreferenceReading {
    package func cachedValue(forKey key: String) throws(StoreError) -> CachedValue {
        guard case .current(let text, let generation) = try engine.cachedValueText(forKey: key) else {
            return .unknown
        }
        let path = files.preferences
        let value = try text.map { text throws(StoreError) in try StoredDocument.decode(text, key: key, path: path) }
        engine.remember(value, textCount: text?.count ?? 0, forKey: key, generation: generation)
        return .known(value)
    }

    package func recentValue(forKeyUTF8 key: UnsafeRawBufferPointer) -> CachedValue {
        guard let value = engine.recentValue(forKeyUTF8: key) else { return .unknown }
        return .known(value)
    }
}

extension InMemoryPreferenceStore: CachedPreferenceReading {
    package func cachedValue(forKey key: String) throws(StoreError) -> CachedValue {
        .known(currentValue(forKey: key))
    }
}

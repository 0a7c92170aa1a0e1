package import ChannelBridgeCodec

/// A store that can sometimes answer a read at once, without suspending: the fast path the
/// `shared_preference_app_group` plugin takes for a get when nothing of its session is pending.
package protocol CachedPreferenceReading: Sendable {
    /// The value under `key` if it is known without waiting (`.known`), else `.unknown`: then
    /// call `value(forKey:)`. Blocks for no more than a non-blocking `read` of an inotify
    /// descriptor and one `stat(2)`.
    func cachedValue(forKey key: String) throws(StoreError) -> CachedValue

    /// `cachedValue(forKey:)` for the key whose UTF-8 bytes are `key`, with `.unknown` for
    /// bytes that are not valid UTF-8 and for an error (which `cachedValue(forKey:)` then meets
    /// again and throws). A store may answer a key it read lately without building a `String`.
    func cachedValue(forKeyUTF8 key: UnsafeRawBufferPointer) -> CachedValue
}

extension CachedPreferenceReading {
    package func cachedValue(forKeyUTF8 key: UnsafeRawBufferPointer) -> CachedValue {
        guard let key = StandardReader.string(utf8: key), let value = try? cachedValue(forKey: key)
        else { return .unknown }
        return value
    }
}

package enum CachedValue: Sendable {
    /// The key's value now (`nil`: absent).
    case known(StandardValue?)
    /// Not known without reading the file.
    case unknown
}

extension AppGroupPreferences: CachedPreferenceReading {
    package func cachedValue(forKey key: String) throws(StoreError) -> CachedValue {
        try cachedValue(forKey: key, epoch: engine.freshness.epoch())
    }

    /// A key read lately is found by its bytes (`RecentValues`); any other is looked up in the
    /// document's index as `cachedValue(forKey:)` looks it up, with the one `read` of the
    /// freshness watch made here.
    package func cachedValue(forKeyUTF8 key: UnsafeRawBufferPointer) -> CachedValue {
        let epoch = engine.freshness.epoch()
        if let epoch, let value = engine.recentValue(forKeyUTF8: key, epoch: epoch) { return .known(value) }
        return indexedValue(forKeyUTF8: key, epoch: epoch)
    }

    /// The rest of `cachedValue(forKeyUTF8:)`, out of line: a warm key's read stays short. The
    /// member is found by the key's bytes when the document can (`KeyBytesIndex`), else by the key
    /// as a `String` in the document's index.
    @inline(never)
    private func indexedValue(forKeyUTF8 utf8: UnsafeRawBufferPointer, epoch: UInt64?) -> CachedValue {
        // The codec's reading of a String (an ASCII key is checked a word at a time and a short one
        // built in place): `String(validating:as:)` is generic over the encoding, and looks its
        // metadata up in the runtime on every call.
        guard let key = StandardReader.string(utf8: utf8) else { return .unknown }
        if let epoch, let found = engine.cachedValueText(forKeyUTF8: utf8, epoch: epoch) {
            guard let value = try? decodeAndRemember(found.text, generation: found.generation, forKey: key) else {
                return .unknown
            }
            return .known(value)
        }
        guard let value = try? cachedValue(forKey: key, epoch: epoch) else { return .unknown }
        return value
    }

    /// `cachedValue(forKey:)` with the freshness watch's epoch read just before.
    private func cachedValue(forKey key: String, epoch: UInt64?) throws(StoreError) -> CachedValue {
        guard case .current(let text, let generation) = try engine.cachedValueText(forKey: key, epoch: epoch) else {
            return .unknown
        }
        return .known(try decodeAndRemember(text, generation: generation, forKey: key))
    }

    /// The value whose text `text` is (`nil`: none) in the document of `generation`, decoded and
    /// left at hand for the next read of `key`.
    private func decodeAndRemember(
        _ text: ArraySlice<UInt8>?, generation: UInt64, forKey key: String
    ) throws(StoreError) -> StandardValue? {
        let path = files.preferences
        let value = try text.map { text throws(StoreError) in try StoredDocument.decode(text, key: key, path: path) }
        engine.remember(value, textCount: text?.count ?? 0, forKey: key, generation: generation)
        return value
    }
}

extension InMemoryPreferenceStore: CachedPreferenceReading {
    package func cachedValue(forKey key: String) throws(StoreError) -> CachedValue {
        .known(currentValue(forKey: key))
    }
}

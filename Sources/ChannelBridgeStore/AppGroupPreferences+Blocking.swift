package import ChannelBridgeCodec

/// The same operations for synchronous callers, such as Foundation's `UserDefaults` in the
/// `Flutter` module: each returns once its read is done or its write is durable, blocking the
/// calling thread (file reads, the group's lock, `fsync`). Never call them from a thread of the
/// concurrency pool.
extension AppGroupPreferences {
    /// `value(forKey:)`, blocking.
    package func blockingValue(forKey key: String) throws(StoreError) -> StandardValue? {
        if case .known(let value) = try cachedValue(forKey: key) { return value }
        let text = try engine.currentValueText(forKey: key)
        return try text.map { text throws(StoreError) in
            try StoredDocument.decode(text, key: key, path: files.preferences)
        }
    }

    /// `allValues()`, blocking.
    package func blockingAllValues() throws(StoreError) -> [PreferenceEntry] {
        try engine.currentDocument().allValues(path: engine.files.preferences)
    }

    /// `set(_:forKey:)`, blocking: `nil` removes the key.
    package func blockingSet(_ value: StandardValue?, forKey key: String) throws(StoreError) {
        let text = try value.map { value throws(StoreError) in try ValueCheck.encoded(value, forKey: key) }
        try engine.performBlocking(value == nil ? "remove of '\(key)'" : "set of '\(key)'") { edit in
            edit.set(key, text: text)
        }
    }

    /// `removeAll()`, blocking.
    package func blockingRemoveAll() throws(StoreError) {
        try engine.performBlocking("removeAll") { edit in edit.removeAll() }
    }

    /// `containerDirectory()`, blocking.
    package func blockingContainerDirectory() throws(StoreError) -> String {
        try FileSystem.makeDirectories(files.container)
        return files.container
    }
}

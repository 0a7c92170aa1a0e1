public import ChannelBridgePlugins
public import ChannelBridgeStore

/// The preference store a host hands to its plugins; none by default.
public enum PreferenceStoreProviderKey: PluginEnvironmentKey {
    public static let defaultValue: (any PreferenceStoreProvider)? = nil
}

/// The app groups a host is entitled to (its `com.apple.security.application-groups`).
public enum EntitledAppGroupsKey: PluginEnvironmentKey {
    public static let defaultValue = ["group.local"]
}

extension PluginEnvironment {
    /// Where plugins find app-group preferences. Without one, the `shared_preference_app_group`
    /// plugin answers `STORE_UNAVAILABLE`.
    ///
    /// ```swift
    /// environment.preferenceStoreProvider = AppGroupStore(dataDirectory: "/var/lib/example")
    /// ```
    public var preferenceStoreProvider: (any PreferenceStoreProvider)? {
        get { self[PreferenceStoreProviderKey.self] }
        set { self[PreferenceStoreProviderKey.self] = newValue }
    }

    /// The app groups plugins may use, in the host's order; default `["group.local"]`. When there
    /// is exactly one, it is every session's group until the session chooses (it cannot choose
    /// another).
    public var entitledAppGroups: [String] {
        get { self[EntitledAppGroupsKey.self] }
        set { self[EntitledAppGroupsKey.self] = newValue }
    }
}

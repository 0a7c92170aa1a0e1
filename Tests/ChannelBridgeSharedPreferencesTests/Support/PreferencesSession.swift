import ChannelBridgeChannels
import ChannelBridgeCodec
import ChannelBridgeMessenger
import ChannelBridgePlugins
import ChannelBridgeSharedPreferences
import ChannelBridgeStore
import ChannelBridgeTesting

/// One client session with the plugin on the other side, joined in memory: no socket, no file.
struct PreferencesSession {
    let client: MessengerConnection
    let host: MessengerConnection
    let registry: PluginRegistry
    /// The client's end of `shared_preference_app_group`.
    let channel: MethodChannel
    /// The client's end of `shared_preference_app_group/changes`.
    let changes: EventChannel

    /// - Parameters:
    ///   - provider: the store (none: the host set no store).
    ///   - entitled: the entitled groups (`nil`: the host left the default).
    static func start(
        provider: (any PreferenceStoreProvider)?, entitled: [String]? = nil
    ) async throws -> PreferencesSession {
        let (client, host) = InMemoryMessenger.makePair()
        var environment = PluginEnvironment()
        environment.preferenceStoreProvider = provider
        if let entitled { environment.entitledAppGroups = entitled }
        let registry = PluginRegistry(messenger: host, environment: environment)
        try await registry.register(SharedPreferenceAppGroupPlugin.self)
        return PreferencesSession(
            client: client, host: host, registry: registry,
            channel: MethodChannel(name: "shared_preference_app_group", messenger: client),
            changes: EventChannel(name: "shared_preference_app_group/changes", messenger: client))
    }

    @discardableResult
    func call(_ method: String, _ arguments: StandardValue = .null) async throws -> StandardValue {
        try await channel.invokeMethod(method, arguments: arguments)
    }

    func close() {
        client.close()
    }
}

/// The error the plugin answers with, built here independently of the plugin's own code.
func invalidArguments(_ method: String, _ argument: String?, _ problem: String) -> MethodError {
    MethodError(
        code: "INVALID_ARGUMENTS", message: "\(method): \(problem)",
        details: ["method": .string(method), "argument": argument.map(StandardValue.string) ?? .null])
}

func wrongType(_ method: String, key: String, stored: String, wanted: String) -> MethodError {
    MethodError(
        code: "WRONG_TYPE", message: "\(method): the value of key '\(key)' is \(stored), not \(wanted)",
        details: ["key": .string(key), "storedType": .string(stored), "wantedType": .string(wanted)])
}

func notEntitled(_ group: String, entitled: [String]) -> MethodError {
    MethodError(
        code: "APP_GROUP_NOT_ENTITLED",
        message: "Not entitled to the app group '\(group)' (entitled app groups: "
            + (entitled.isEmpty ? "none" : entitled.joined(separator: ", ")) + ")",
        details: ["appGroup": .string(group), "entitledAppGroups": .list(entitled.map(StandardValue.string))])
}

func appGroupHasNotBeenSet(_ method: String, entitled: [String]) -> MethodError {
    MethodError(
        code: "APP_GROUP_HAS_NOT_BEEN_SET",
        message: "You need to call setAppGroup before \(method); this session has no app group "
            + "(entitled app groups: " + (entitled.isEmpty ? "none" : entitled.joined(separator: ", ")) + ")",
        details: ["method": .string(method), "entitledAppGroups": .list(entitled.map(StandardValue.string))])
}

import ChannelBridgeChannels
import ChannelBridgeCodec
public import ChannelBridgePlugins

/// The `shared_preference_app_group` plugin: app-group preferences over a `MethodChannel`,
/// wire-compatible with the published Flutter plugin, plus a change stream.
///
/// It reads the host's services from the registrar's environment:
/// `environment.preferenceStoreProvider` (without one, every call that touches the store answers
/// `STORE_UNAVAILABLE`) and `environment.entitledAppGroups` (default `["group.local"]`).
///
/// Channel `shared_preference_app_group` (StandardMethodCodec); every setter and remover answers
/// `null`:
///
/// | method | arguments | result |
/// |---|---|---|
/// | `setAppGroup` | `{appGroup}` | `null`; chooses the group for this session |
/// | `get` | `{key}` | the stored value as stored, or `null` |
/// | `getBool` `getInt` `getDouble` `getString` `getStringArray` `getBytes` | `{key}` | the value, `null` when absent |
/// | `getAll` | — | a map of every key to its value, in the store's order |
/// | `setBool` `setInt` `setDouble` `setString` `setStringArray` `setBytes` | `{key, value}` | `null`; a null `value` removes the key |
/// | `remove` | `{key}` | `null` |
/// | `removeAll` | — | `null` |
/// | `appendToList` | `{key, values}` | `null`; appends each of `values` to the list under `key` in one atomic step, creating it; `WRONG_TYPE` when the key holds a non-list |
/// | `take` | `{key}` | the value, removed in the same atomic step; `null` when absent |
///
/// A session's calls take effect in the order they arrived: a get sees every set, remove, append
/// or take sent before it on the session, even when the caller did not wait for their replies.
/// (`appendToList` and `take` are ours; the published plugin has neither.)
///
/// Typed getters answer `null` for a missing key (the published iOS code answers `false`/`0`/`0.0`
/// instead); `getDouble` widens an int; any other mismatch is `WRONG_TYPE`. Values keep their width:
/// an int32 stays an int32 and an int64 an int64, even a small one. `setDouble` wants a double (Dart
/// always sends one), `setInt` an int of either width. Any other method gets a null reply ("not
/// implemented"). Error codes are listed in `ErrorCode`.
///
/// The app group is chosen per session (per registry): each session starts with none, unless
/// exactly one group is entitled, which is then the default.
///
/// Event channel `shared_preference_app_group/changes`: listen with `{appGroup?, keys?}` (without
/// `appGroup`, the session's group); every write to that group, by this session, another session or
/// another process using the same store, is sent as `{key, value}` (`value` null for a removal; one
/// event per key for `removeAll`), limited to `keys` when given. An unentitled group refuses the
/// listen.
///
/// ```swift
/// var environment = PluginEnvironment()
/// environment.preferenceStoreProvider = AppGroupStore(dataDirectory: dataDirectory)
/// environment.entitledAppGroups = ["group.com.example.app"]
/// let registry = PluginRegistry(messenger: session, environment: environment)
/// try await registry.register(SharedPreferenceAppGroupPlugin.self)
///
/// // The client side (a Dart app, or this):
/// let prefs = MethodChannel(name: "shared_preference_app_group", messenger: client)
/// _ = try await prefs.invokeMethod("setAppGroup", arguments: ["appGroup": "group.com.example.app"])
/// let shared = try await prefs.invokeMethod("getString", arguments: ["key": "ShareKey"])
/// ```
public enum SharedPreferenceAppGroupPlugin: Plugin {
    /// The key the published plugin is registered under by Flutter's generated registrant.
    public static let pluginKey = "SharedPreferenceAppGroupPlugin"
    /// The method channel, as the published plugin names it.
    public static let channelName = "shared_preference_app_group"
    /// The event channel for changes (ours; the published plugin has none).
    public static let changesChannelName = "shared_preference_app_group/changes"

    public static func register(with registrar: PluginRegistrar) {
        let configuration = PreferenceConfiguration(
            provider: registrar.environment.preferenceStoreProvider,
            entitledAppGroups: registrar.environment.entitledAppGroups)
        let methods = PreferenceMethodHandler(configuration)
        registrar.addMethodCallDelegate(
            methods, channel: MethodChannel(name: channelName, messenger: registrar.messenger))
        // A listen without `appGroup` follows the session's group, as every method does.
        registrar.addStreamHandler(
            PreferenceChangesStreamHandler(configuration, sessionAppGroup: { methods.sessionAppGroup }),
            channel: EventChannel(name: changesChannelName, messenger: registrar.messenger))
        registrar.describe(
            ChannelDescription(
                name: channelName, kind: .method, codec: "standard", methods: Self.methods,
                summary: "An app group's preferences, shared with every process of the store"))
        registrar.describe(
            ChannelDescription(
                name: changesChannelName, kind: .event, codec: "standard",
                summary: #"Every write to an app group: listen {"appGroup"?, "keys"?}; events {"key", "value"}"#))
    }

    /// The methods of Protocol/extension-host.md §4.1, for reflection.
    static let methods: [MethodDescription] = [
        ("setAppGroup", #"{"appGroup": String} -> null; chooses the session's group"#),
        ("get", #"{"key": String} -> the value as stored, or null"#),
        ("getBool", #"{"key": String} -> bool or null"#),
        ("getInt", #"{"key": String} -> int or null"#),
        ("getDouble", #"{"key": String} -> double (an int widened) or null"#),
        ("getString", #"{"key": String} -> String or null"#),
        ("getStringArray", #"{"key": String} -> List of Strings or null"#),
        ("getBytes", #"{"key": String} -> Uint8List or null"#),
        ("getAll", "-> Map of every key to its value"),
        ("setBool", #"{"key": String, "value": bool or null} -> null"#),
        ("setInt", #"{"key": String, "value": int or null} -> null"#),
        ("setDouble", #"{"key": String, "value": double or null} -> null"#),
        ("setString", #"{"key": String, "value": String or null} -> null"#),
        ("setStringArray", #"{"key": String, "value": List of Strings or null} -> null"#),
        ("setBytes", #"{"key": String, "value": Uint8List or null} -> null"#),
        ("remove", #"{"key": String} -> null"#),
        ("removeAll", "-> null; removes every key of the group"),
        ("appendToList", #"{"key": String, "values": List} -> null; appends atomically"#),
        ("take", #"{"key": String, "requestId"?: String} -> the value, removed atomically, or null"#),
    ].map { MethodDescription(name: $0.0, summary: $0.1) }
}

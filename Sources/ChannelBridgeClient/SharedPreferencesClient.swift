import ChannelBridgeChannels
import ChannelBridgeCodec
import ChannelBridgeMessenger

/// The `shared_preference_app_group` plugin from the caller's side, with typed getters and
/// setters, and the host's change stream.
///
/// ```swift
/// let prefs = try await host.sharedPreferences(appGroup: "group.demo")
/// try await prefs.setInt("launches", 3)
/// try await prefs.appendToList("itemList", ["shared text"])
/// for try await change in prefs.changes(keys: ["launches"]) { print(change.key, change.value) }
/// ```
public struct SharedPreferencesClient: Sendable {
    public static let channelName = "shared_preference_app_group"
    public static let changesChannelName = "shared_preference_app_group/changes"

    public let channel: MethodChannel
    let messenger: any BinaryMessenger
    /// The group chosen with `setAppGroup`, which the change stream listens to.
    private let group = GroupBox()

    public init(messenger: any BinaryMessenger) {
        self.messenger = messenger
        channel = MethodChannel(name: Self.channelName, messenger: messenger)
    }

    public func setAppGroup(_ appGroup: String) async throws {
        _ = try await channel.invokeMethod("setAppGroup", arguments: ["appGroup": .string(appGroup)])
        group.set(appGroup)
    }

    private func get(_ method: String, _ key: String) async throws -> StandardValue {
        try await channel.invokeMethod(method, arguments: ["key": .string(key)])
    }

    private func typed<T>(_ method: String, _ key: String, _ read: (StandardValue) -> T?) async throws -> T? {
        let value = try await get(method, key)
        if value == .null { return nil }
        guard let typed = read(value) else {
            throw ChannelError(.malformedReply, "\(method) answered \(value) for '\(key)'", channel: channel.name, method: method)
        }
        return typed
    }

    /// The stored value of any type, `.null` when missing.
    public func get(_ key: String) async throws -> StandardValue { try await get("get", key) }
    public func getString(_ key: String) async throws -> String? { try await typed("getString", key) { $0.stringValue } }
    public func getInt(_ key: String) async throws -> Int? { try await typed("getInt", key) { $0.intValue } }
    public func getDouble(_ key: String) async throws -> Double? { try await typed("getDouble", key) { $0.doubleValue } }
    public func getBool(_ key: String) async throws -> Bool? { try await typed("getBool", key) { $0.boolValue } }
    public func getStringArray(_ key: String) async throws -> [String]? {
        try await typed("getStringArray", key) { $0.stringListValue }
    }
    public func getBytes(_ key: String) async throws -> [UInt8]? { try await typed("getBytes", key) { $0.bytesValue } }

    /// Every key and value of the group, in the store's order.
    public func getAll() async throws -> [StandardValue.MapEntry] {
        let value = try await channel.invokeMethod("getAll")
        guard let entries = value.mapEntries else {
            throw ChannelError(.malformedReply, "getAll answered \(value), not a map", channel: channel.name, method: "getAll")
        }
        return entries
    }

    private func set(_ method: String, _ key: String, _ value: StandardValue) async throws {
        _ = try await channel.invokeMethod(method, arguments: ["key": .string(key), "value": value])
    }

    public func setString(_ key: String, _ value: String?) async throws { try await set("setString", key, value.standardValue) }
    public func setInt(_ key: String, _ value: Int?) async throws { try await set("setInt", key, value.standardValue) }
    public func setDouble(_ key: String, _ value: Double?) async throws { try await set("setDouble", key, value.standardValue) }
    public func setBool(_ key: String, _ value: Bool?) async throws { try await set("setBool", key, value.standardValue) }
    public func setStringArray(_ key: String, _ value: [String]?) async throws {
        try await set("setStringArray", key, value.map { .list($0.map(StandardValue.string)) } ?? .null)
    }
    public func setBytes(_ key: String, _ value: [UInt8]?) async throws {
        try await set("setBytes", key, value.map(StandardValue.uint8List) ?? .null)
    }

    public func remove(_ key: String) async throws {
        _ = try await channel.invokeMethod("remove", arguments: ["key": .string(key)])
    }

    public func removeAll() async throws {
        _ = try await channel.invokeMethod("removeAll")
    }

    /// Appends each of `values` to the list under `key` in one atomic step on the host, creating
    /// the list when the key is absent; appenders in any number of processes lose no item.
    /// Throws `MethodError` `WRONG_TYPE` (nothing written) when the key holds something else.
    public func appendToList(_ key: String, _ values: [StandardValue]) async throws {
        _ = try await channel.invokeMethod("appendToList", arguments: ["key": .string(key), "values": .list(values)])
    }

    /// Reads and removes `key` in one atomic step: an item appended meanwhile is either in the
    /// value returned or still stored. `.null` when the key was absent.
    public func take(_ key: String) async throws -> StandardValue {
        try await channel.invokeMethod("take", arguments: ["key": .string(key)])
    }

    /// Every write to the group (`appGroup`, else the one chosen with `setAppGroup`), by this host
    /// or by any other process on the same store; `keys` limits it to those keys. Error events
    /// end the sequence with the `MethodError`.
    public func changes(appGroup: String? = nil, keys: [String]? = nil) -> AsyncThrowingStream<PreferenceChange, any Error> {
        var arguments: [StandardValue.MapEntry] = []
        if let chosen = appGroup ?? group.value { arguments.append(.init("appGroup", .string(chosen))) }
        if let keys { arguments.append(.init("keys", .list(keys.map(StandardValue.string)))) }
        let events = EventChannel(name: Self.changesChannelName, messenger: messenger)
            .receiveBroadcastStream(arguments: .map(arguments))
        return AsyncThrowingStream { continuation in
            let task = Task {
                do {
                    for try await event in events {
                        let value = try event.get()
                        continuation.yield(PreferenceChange(key: value["key"]?.stringValue ?? "", value: value["value"] ?? .null))
                    }
                    continuation.finish()
                } catch {
                    continuation.finish(throwing: error)
                }
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }
}

/// One write seen on the change stream: `value` is `.null` when the key was removed.
public struct PreferenceChange: Sendable, Hashable {
    public var key: String
    public var value: StandardValue

    public init(key: String, value: StandardValue) {
        self.key = key
        self.value = value
    }
}

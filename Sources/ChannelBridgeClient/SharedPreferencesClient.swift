public import ChannelBridgeChannels
public import ChannelBridgeCodec
public import ChannelBridgeMessenger
import Foundation

/// The `shared_preference_app_group` plugin from the caller's side, with typed getters and
/// setters, and the host's change stream.
///
/// ```swift
/// let prefs = try await host.sharedPreferences(appGroup: "group.demo")
/// try await prefs.setInt("launches", 3)
/// try await prefs.appendToList("itemList", ["shared text"])
/// for try await change in prefs.changes(keys: ["launches"]) { print(change.key, change.value) }
/// ```
///
/// A reply of the wrong type (from a host that does not follow the plugin's contract) throws
/// `ChannelError` `malformedReply`, naming the method and where the value differs.
public struct SharedPreferencesClient: Sendable {
    public static let channelName = "shared_preference_app_group"
    public static let changesChannelName = "shared_preference_app_group/changes"

    public let channel: MethodChannel
    let messenger: any BinaryMessenger
    /// The group chosen with `setAppGroup`, which the change stream listens to.
    private let group = GroupBox()
    /// How `take` reaches the host again after its connection ended; `nil`: it does not retry.
    let reconnector: Reconnector?

    /// How long `take` keeps retrying after its connection ended (see `take`).
    public var takeRetryPeriod: Duration = .seconds(30)

    /// The longest each method waits for the host's reply; then the request is withdrawn and the
    /// method throws `ChannelError` `timedOut`. `nil` waits for ever. Default 30 s
    /// (`ExtensionHostClient.defaultCallTimeout`; `ExtensionHostClient.sharedPreferences` gives the
    /// client its own `callTimeout`). Each attempt of a retried `take` has this timeout; the change
    /// stream (`changes`) waits for events for as long as it is listened to.
    public var callTimeout: Duration? = ExtensionHostClient.defaultCallTimeout

    public init(messenger: any BinaryMessenger) {
        self.messenger = messenger
        channel = MethodChannel(name: Self.channelName, messenger: messenger)
        reconnector = nil
    }

    /// A client whose `take` reconnects with `reconnect` (which returns a new connection's
    /// messenger and how to close it) when its connection ends before the reply.
    public init(
        messenger: any BinaryMessenger,
        reconnect: @escaping @Sendable () async throws -> (messenger: any BinaryMessenger, close: @Sendable () -> Void)
    ) {
        self.messenger = messenger
        channel = MethodChannel(name: Self.channelName, messenger: messenger)
        reconnector = Reconnector(reconnect)
    }

    public func setAppGroup(_ appGroup: String) async throws {
        try await channel.invokeMethod(
            "setAppGroup", arguments: ["appGroup": appGroup], as: Void.self, timeout: callTimeout)
        group.set(appGroup)
    }

    /// `method` for `key`, its result decoded as `T` (`nil` for a missing key when `T` is optional).
    private func get<T: Decodable>(_ method: String, _ key: String) async throws -> T {
        try await channel.invokeMethod(method, arguments: KeyArgument(key: key), as: T.self, timeout: callTimeout)
    }

    /// The stored value of any type, `.null` when missing.
    public func get(_ key: String) async throws -> StandardValue { try await get("get", key) }
    public func getString(_ key: String) async throws -> String? { try await get("getString", key) }
    public func getInt(_ key: String) async throws -> Int? { try await get("getInt", key) }
    public func getDouble(_ key: String) async throws -> Double? { try await get("getDouble", key) }
    public func getBool(_ key: String) async throws -> Bool? { try await get("getBool", key) }
    public func getStringArray(_ key: String) async throws -> [String]? { try await get("getStringArray", key) }
    public func getBytes(_ key: String) async throws -> [UInt8]? { try await get("getBytes", key) }

    /// Every key and value of the group, in the store's order.
    public func getAll() async throws -> [StandardValue.MapEntry] {
        let value = try await channel.invokeMethod("getAll", timeout: callTimeout)
        guard let entries = value.mapEntries else {
            throw ChannelError(
                .malformedReply, "getAll answered \(value), not a map", channel: channel.name, method: "getAll")
        }
        return entries
    }

    /// `method` with `{"key": key, "value": value}`; a `nil` value is sent as null, which removes the key.
    private func set(_ method: String, _ key: String, _ value: (some Encodable)?) async throws {
        try await channel.invokeMethod(
            method, arguments: Assignment(key: key, value: value), as: Void.self,
            timeout: callTimeout)
    }

    public func setString(_ key: String, _ value: String?) async throws { try await set("setString", key, value) }
    public func setInt(_ key: String, _ value: Int?) async throws { try await set("setInt", key, value) }
    public func setDouble(_ key: String, _ value: Double?) async throws { try await set("setDouble", key, value) }
    public func setBool(_ key: String, _ value: Bool?) async throws { try await set("setBool", key, value) }
    public func setStringArray(_ key: String, _ value: [String]?) async throws {
        try await set("setStringArray", key, value)
    }
    public func setBytes(_ key: String, _ value: [UInt8]?) async throws { try await set("setBytes", key, value) }

    public func remove(_ key: String) async throws {
        try await channel.invokeMethod("remove", arguments: KeyArgument(key: key), as: Void.self, timeout: callTimeout)
    }

    public func removeAll() async throws {
        try await channel.invokeMethod("removeAll", as: Void.self, timeout: callTimeout)
    }

    /// Appends each of `values` to the list under `key` in one atomic step on the host, creating
    /// the list when the key is absent; appenders in any number of processes lose no item.
    /// Throws `MethodError` `WRONG_TYPE` (nothing written) when the key holds something else.
    public func appendToList(_ key: String, _ values: [StandardValue]) async throws {
        _ = try await channel.invokeMethod(
            "appendToList", arguments: ["key": .string(key), "values": .list(values)],
            timeout: callTimeout)
    }

    /// Reads and removes `key` in one atomic step: an item appended meanwhile is either in the
    /// value returned or still stored. `.null` when the key was absent.
    ///
    /// The take carries a request id of its own (`requestID`, a fresh UUID when `nil`), so it can
    /// be retried: when the connection ends before the reply and the client was made with a way
    /// to reconnect (`ExtensionHostClient.sharedPreferences` makes it so), it reconnects, chooses
    /// the app group again and sends the same take, for up to `takeRetryPeriod`; the host answers
    /// a take it made already with the value it took then. So each item is returned exactly once,
    /// whatever happens to the connection or the host.
    public func take(_ key: String, requestID: String? = nil) async throws -> StandardValue {
        let arguments: StandardValue = ["key": .string(key), "requestId": .string(requestID ?? UUID().uuidString)]
        let callTimeout = callTimeout
        return try await TakeRetry.run(
            retryFor: takeRetryPeriod, reconnector: reconnector, first: messenger,
            appGroup: group.value, callTimeout: callTimeout
        ) { channel in
            try await channel.invokeMethod("take", arguments: arguments, timeout: callTimeout)
        }
    }

    /// Every write to the group (`appGroup`, else the one chosen with `setAppGroup`), by this host
    /// or by any other process on the same store; `keys` limits it to those keys. An error event
    /// ends the sequence with its `MethodError`; an event that is not `{key: String, value}` ends
    /// it with `ChannelError` `malformedEvent`.
    public func changes(
        appGroup: String? = nil, keys: [String]? = nil
    ) -> AsyncThrowingStream<PreferenceChange, any Error> {
        let arguments = ChangesArguments(appGroup: appGroup ?? group.value, keys: keys)
        // Listens now, as the call is made. The task only hands the events on, because the
        // public type is an AsyncThrowingStream, which the typed stream mapped is not.
        let events = Result {
            try EventChannel(name: Self.changesChannelName, messenger: messenger)
                .receiveBroadcastStream(arguments: arguments, as: PreferenceChange.self)
        }
        let (changes, continuation) = AsyncThrowingStream.makeStream(of: PreferenceChange.self)
        let task = Task {
            do {
                for try await event in try events.get() { continuation.yield(try event.get()) }
                continuation.finish()
            } catch {
                continuation.finish(throwing: error)
            }
        }
        continuation.onTermination = { _ in task.cancel() }
        return changes
    }
}

/// One write seen on the change stream (the event `{"key": String, "value": any}`): `value` is
/// `.null` when the key was removed.
public struct PreferenceChange: Sendable, Hashable, Decodable {
    public var key: String
    public var value: StandardValue

    public init(key: String, value: StandardValue) {
        self.key = key
        self.value = value
    }

    /// Keys compare by code units, as the plugin and Dart tell keys apart.
    public static func == (lhs: PreferenceChange, rhs: PreferenceChange) -> Bool {
        CodeUnitString.equal(lhs.key, rhs.key) && lhs.value == rhs.value
    }

    public func hash(into hasher: inout Hasher) {
        CodeUnitString.hash(key, into: &hasher)
        hasher.combine(value)
    }
}

/// `{"key": key}`: the arguments of the getters, `remove` and `take`.
private struct KeyArgument: Encodable {
    var key: String
}

/// `{"key": key, "value": value}`, with `"value": null` for `nil` (the plugin requires the key).
private struct Assignment<Value: Encodable>: Encodable {
    var key: String
    var value: Value?
}

/// `listen`'s arguments; a `nil` member is sent as null, which the plugin reads as absent.
private struct ChangesArguments: Encodable {
    var appGroup: String?
    var keys: [String]?
}

public import ChannelBridgeChannels
public import ChannelBridgeCodec
public import ChannelBridgeMessenger
public import ChannelBridgeSocket

/// A connection to a running extension host, from any process: the Swift face of what a Flutter
/// UI inside a share extension does over its MethodChannels.
///
/// ```swift
/// let host = try await ExtensionHostClient.connect(to: "/tmp/demo/host.sock")
/// let items = try await host.items()
/// let prefs = try await host.sharedPreferences(appGroup: "group.demo")
/// let shared = try await prefs.getString("ShareKey")
/// try await host.exit()
/// ```
///
/// Every call fails with a typed error when the host goes away: `ChannelError` with code
/// `connectionClosed`, naming the channel and method. A reply of the wrong shape throws
/// `ChannelError` `malformedReply`, naming the method and where the value differs
/// ("The result of getInputItems is not Array<ExtensionItem>: `[0].attachments`: …").
public final class ExtensionHostClient: Sendable {
    /// The extension channel's default name.
    public static let extensionChannelName = "channelbridge/extension"

    public let connection: SocketConnection
    public let extensionChannel: MethodChannel

    public var messenger: any BinaryMessenger { connection.messenger }

    /// The longest any method of this client (and of the `SharedPreferencesClient`s it makes) waits
    /// for the host's reply; then the call is withdrawn and throws `ChannelError` `timedOut`.
    /// `nil` waits for ever. Default 30 s (`defaultCallTimeout`).
    public let callTimeout: Duration?

    public static let defaultCallTimeout: Duration = .seconds(30)

    init(connection: SocketConnection, extensionChannel: String, callTimeout: Duration?) {
        self.connection = connection
        self.extensionChannel = MethodChannel(name: extensionChannel, messenger: connection.messenger)
        self.callTimeout = callTimeout
    }

    /// Connects and waits for the host's HELLO, so a refusal (`forbidden`, a version mismatch)
    /// surfaces here rather than on the first call. Connecting and the HELLO together take at most
    /// `options.connectTimeout` (default 5 s), else `SocketError` `timedOut` ("no answer from the
    /// host at PATH within 5 s: it may be stopped or overloaded"). `callTimeout` bounds each call
    /// made through this client afterwards. The connection's own `options.helloTimeout` is raised
    /// to `options.connectTimeout` when shorter, so that this deadline, with its error, decides.
    public static func connect(
        to path: String = SocketPath.defaultPath(),
        extensionChannel: String = extensionChannelName,
        options: SocketConnection.Options = SocketConnection.Options(),
        callTimeout: Duration? = defaultCallTimeout
    ) async throws -> ExtensionHostClient {
        let clock = ContinuousClock()
        let start = clock.now
        var options = options
        if let hello = options.helloTimeout, hello < options.connectTimeout {
            options.helloTimeout = options.connectTimeout
        }
        let connection = try await SocketConnection.connect(to: path, options: options)
        do {
            try await HelloDeadline.wait(
                for: connection, remaining: options.connectTimeout - (clock.now - start),
                total: options.connectTimeout)
        } catch {
            connection.close()
            throw error
        }
        return ExtensionHostClient(connection: connection, extensionChannel: extensionChannel, callTimeout: callTimeout)
    }

    /// The extension's input items, as the share sheet delivered them.
    public func items() async throws -> [ExtensionItem] {
        try await extensionChannel.invokeMethod("getInputItems", as: [ExtensionItem].self, timeout: callTimeout)
    }

    /// The input items as the host sent them, untyped.
    public func rawItems() async throws -> StandardValue {
        try await extensionChannel.invokeMethod("getInputItems", timeout: callTimeout)
    }

    /// Completes the extension request (`completeRequest(returningItems:)`); the host then exits 0.
    public func exit(returning items: StandardValue = .null) async throws {
        _ = try await extensionChannel.invokeMethod("exit", arguments: items, timeout: callTimeout)
    }

    /// Cancels the extension request with an error; the host then exits 2.
    public func cancel(code: String, message: String? = nil, details: StandardValue = .null) async throws {
        try await extensionChannel.invokeMethod(
            "cancel", arguments: Cancellation(code: code, message: message, details: details),
            as: Void.self, timeout: callTimeout)
    }

    /// Asks the host to open a URL; answers whether it did (per its `--open-url` policy).
    public func openURL(_ url: String) async throws -> Bool {
        try await extensionChannel.invokeMethod("openURL", arguments: ["url": url], as: Bool.self, timeout: callTimeout)
    }

    /// The path of an app group's shared container directory.
    public func appGroupContainer(_ appGroup: String) async throws -> String {
        try await extensionChannel.invokeMethod(
            "getAppGroupContainer", arguments: ["appGroup": appGroup], as: String.self,
            timeout: callTimeout)
    }

    /// The `shared_preference_app_group` plugin, with `appGroup` chosen first when given; its calls
    /// have this client's `callTimeout`.
    public func sharedPreferences(appGroup: String? = nil) async throws -> SharedPreferencesClient {
        let path = connection.path
        let channel = extensionChannel.name
        let callTimeout = callTimeout
        var client = SharedPreferencesClient(messenger: connection.messenger) {
            let host = try await ExtensionHostClient.connect(
                to: path, extensionChannel: channel, callTimeout: callTimeout)
            return (host.messenger, { host.close() })
        }
        client.callTimeout = callTimeout
        if let appGroup { try await client.setAppGroup(appGroup) }
        return client
    }

    /// Any method on any channel of the host, waiting at most `timeout` (`nil`: `callTimeout`).
    public func invokeMethod(
        _ method: String, onChannel channel: String, arguments: StandardValue = .null,
        codec: some MethodCodec = StandardMethodCodec(), timeout: Duration? = nil
    ) async throws -> StandardValue {
        try await MethodChannel(name: channel, messenger: connection.messenger, codec: codec)
            .invokeMethod(method, arguments: arguments, timeout: timeout ?? callTimeout)
    }

    /// Ends the session with GOODBYE `normal`.
    public func close() {
        connection.close()
    }
}

/// `cancel`'s arguments: `{"code", "message", "details"}`, a missing message or details sent as
/// null, which the host reads as absent (`Protocol/extension-host.md` §3).
private struct Cancellation: Encodable {
    var code: String
    var message: String?
    var details: StandardValue
}

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

    init(connection: SocketConnection, extensionChannel: String) {
        self.connection = connection
        self.extensionChannel = MethodChannel(name: extensionChannel, messenger: connection.messenger)
    }

    /// Connects and waits for the host's HELLO, so a refusal (`forbidden`, a version mismatch)
    /// surfaces here rather than on the first call.
    public static func connect(to path: String = SocketPath.defaultPath(),
                               extensionChannel: String = extensionChannelName,
                               options: SocketConnection.Options = SocketConnection.Options()) async throws -> ExtensionHostClient {
        let connection = try await SocketConnection.connect(to: path, options: options)
        do {
            _ = try await connection.messenger.waitForPeerHello()
        } catch {
            connection.close()
            throw error
        }
        return ExtensionHostClient(connection: connection, extensionChannel: extensionChannel)
    }

    /// The extension's input items, as the share sheet delivered them.
    public func items() async throws -> [ExtensionItem] {
        try await extensionChannel.invokeMethod("getInputItems", as: [ExtensionItem].self)
    }

    /// The input items as the host sent them, untyped.
    public func rawItems() async throws -> StandardValue {
        try await extensionChannel.invokeMethod("getInputItems")
    }

    /// Completes the extension request (`completeRequest(returningItems:)`); the host then exits 0.
    public func exit(returning items: StandardValue = .null) async throws {
        _ = try await extensionChannel.invokeMethod("exit", arguments: items)
    }

    /// Cancels the extension request with an error; the host then exits 2.
    public func cancel(code: String, message: String? = nil, details: StandardValue = .null) async throws {
        try await extensionChannel.invokeMethod("cancel", arguments: Cancellation(code: code, message: message, details: details),
                                                as: Void.self)
    }

    /// Asks the host to open a URL; answers whether it did (per its `--open-url` policy).
    public func openURL(_ url: String) async throws -> Bool {
        try await extensionChannel.invokeMethod("openURL", arguments: ["url": url], as: Bool.self)
    }

    /// The path of an app group's shared container directory.
    public func appGroupContainer(_ appGroup: String) async throws -> String {
        try await extensionChannel.invokeMethod("getAppGroupContainer", arguments: ["appGroup": appGroup], as: String.self)
    }

    /// The `shared_preference_app_group` plugin, with `appGroup` chosen first when given.
    public func sharedPreferences(appGroup: String? = nil) async throws -> SharedPreferencesClient {
        let path = connection.path
        let channel = extensionChannel.name
        let client = SharedPreferencesClient(messenger: connection.messenger) {
            let host = try await ExtensionHostClient.connect(to: path, extensionChannel: channel)
            return (host.messenger, { host.close() })
        }
        if let appGroup { try await client.setAppGroup(appGroup) }
        return client
    }

    /// Any method on any channel of the host.
    public func invokeMethod(_ method: String, onChannel channel: String, arguments: StandardValue = .null,
                             codec: some MethodCodec = StandardMethodCodec(), timeout: Duration? = nil) async throws -> StandardValue {
        try await MethodChannel(name: channel, messenger: connection.messenger, codec: codec)
            .invokeMethod(method, arguments: arguments, timeout: timeout)
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

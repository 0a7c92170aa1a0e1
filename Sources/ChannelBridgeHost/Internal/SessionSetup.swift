import ChannelBridgeChannels
import ChannelBridgeCodec
import ChannelBridgeMessenger
import ChannelBridgePlatform
import ChannelBridgePlugins
import ChannelBridgeSharedPreferences
import ChannelBridgeSocket
import ChannelBridgeStore

/// Turns an accepted connection into a `HostSession`: a plugin registry with the selected plugins
/// registered by name, the extension channel, and the echo channel when asked for.
struct SessionSetup: Sendable {
    let options: HostOptions
    let pluginKeys: [String]
    /// Every plugin a session may register by name: the built-in ones and the host's.
    let catalogue: PluginCatalogue
    let setUpSession: (@Sendable (PluginRegistry) throws -> Void)?
    let request: ExtensionRequest
    let store: AppGroupStore
    let sessions: SessionTable
    let output: HostOutput

    /// Runs on the accepting thread before the session sends HELLO or reads anything, so every
    /// handler is in place for the client's first request. `id` is the session's number when the
    /// host gave it one (a worker's session), else the next of `sessions`.
    @discardableResult
    func open(_ connection: SocketConnection, id given: Int? = nil) -> HostSession {
        let id = given ?? sessions.nextID()
        let label = "[session \(id)]"
        let log = output.standardError
        // The connection itself unless traced, so the session's channels answer in place. Requests
        // after the extension request's end are refused by the connection (`RequestGate`).
        let messenger: any BinaryMessenger =
            options.trace
            ? TracingMessenger(
                base: connection.messenger, label: label, binaryChannels: [HostOptions.echoChannel],
                log: { log("extension-host: " + $0) })
            : connection.messenger

        var environment = PluginEnvironment()
        environment.preferenceStoreProvider = store
        environment.entitledAppGroups = options.appGroups
        environment.extensionRequest = request
        let registry = PluginRegistry(messenger: messenger, environment: environment)
        if let failure = Self.register(pluginKeys, from: catalogue, with: registry) {
            log("extension-host: \(label) \(failure)")
        }
        do {
            try setUpSession?(registry)
        } catch {
            log("extension-host: \(label) session setup failed: \(error)")
        }

        let handler = ExtensionChannelHandler(
            channel: options.channel, request: request, store: store,
            entitledAppGroups: options.appGroups,
            allowsOpenURL: options.allowsOpenURL)
        let extensionChannel = MethodChannel(name: options.channel, messenger: messenger)
        extensionChannel.setMethodCallHandler(replyThen: handler.handleThenAfterReply)
        var echoChannel: BasicMessageChannel<BinaryCodec>?
        if options.echo {
            let echo = BasicMessageChannel(name: HostOptions.echoChannel, messenger: messenger, codec: BinaryCodec())
            echo.setMessageHandler { message in message }
            echoChannel = echo
        }

        let catalog = registry.channels
        catalog.add(ExtensionChannelHandler.description(channel: options.channel))
        if options.echo {
            catalog.add(
                ChannelDescription(
                    name: HostOptions.echoChannel, kind: .message, codec: "binary",
                    summary: "Answers every message with the bytes it carried (--echo)"))
        }
        // Removed with the plugins' handlers when the registry is torn down.
        registry.serveReflection()

        let session = HostSession(
            id: id, connection: connection, messenger: messenger, registry: registry,
            extensionChannel: extensionChannel, echoChannel: echoChannel)
        sessions.add(session)
        if options.trace {
            log("extension-host: \(label) connected: \(connection.peerCredentials)")
        }
        let trace = options.trace
        connection.onClose { [sessions] error in
            sessions.remove(id)
            if trace { log("extension-host: \(label) closed: \(error)") }
            Task { await session.tearDown() }
        }
        return session
    }

    /// Registers the plugins through the registrant, by name, as Flutter's generated registrant
    /// does. This runs on the accepting thread, which waits for no task: a plugin that fails is
    /// removed at once and its teardown hooks run afterwards (`registerWithoutWaiting`).
    private static func register(
        _ keys: [String], from catalogue: PluginCatalogue,
        with registry: PluginRegistry
    ) -> PluginError? {
        do throws(PluginError) {
            try PluginRegistrant(catalogue: catalogue).registerWithoutWaiting(keys, with: registry)
            return nil
        } catch {
            return error
        }
    }
}

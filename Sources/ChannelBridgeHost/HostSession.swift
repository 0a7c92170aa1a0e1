import ChannelBridgeChannels
import ChannelBridgeCodec
import ChannelBridgeMessenger
import ChannelBridgePlatform
import ChannelBridgePlugins
import ChannelBridgeSocket

/// One client session of the host (one engine, in Flutter's terms): its socket connection, the
/// messenger its channels use, and its own plugin registry.
final class HostSession: Sendable {
    let id: Int
    let connection: SocketConnection
    /// The messenger the channels and plugins use: the connection's, or a tracing wrapper of it.
    let messenger: any BinaryMessenger
    let registry: PluginRegistry
    let extensionChannel: MethodChannel
    let echoChannel: BasicMessageChannel<BinaryCodec>?
    private let tornDown = LockedValue(false)

    init(
        id: Int, connection: SocketConnection, messenger: any BinaryMessenger, registry: PluginRegistry,
        extensionChannel: MethodChannel, echoChannel: BasicMessageChannel<BinaryCodec>?
    ) {
        self.id = id
        self.connection = connection
        self.messenger = messenger
        self.registry = registry
        self.extensionChannel = extensionChannel
        self.echoChannel = echoChannel
    }

    /// Removes the session's handlers and tears its plugins down, once.
    func tearDown() async {
        let first = tornDown.withLock { done -> Bool in
            defer { done = true }
            return !done
        }
        guard first else { return }
        await registry.tearDown()
        extensionChannel.setMethodCallHandler(nil)
        echoChannel?.setMessageHandler(nil)
    }
}

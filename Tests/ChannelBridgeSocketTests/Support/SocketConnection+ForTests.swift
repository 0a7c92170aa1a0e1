import ChannelBridgeSocket
import ChannelBridgeTestSupport

extension SocketConnection.Options {
    /// The default options with the connect timeout (5 s) stretched as hang guards stretch, so a
    /// sanitized build, several times slower, does not miss it on a loaded machine.
    static var forTests: Self { Self(connectTimeout: .seconds(HangGuardScale.scaled(5))) }
}

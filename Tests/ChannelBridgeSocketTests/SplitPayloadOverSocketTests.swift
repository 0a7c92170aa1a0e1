import ChannelBridgeChannels
import ChannelBridgeCodec
import ChannelBridgeMessenger
import ChannelBridgeSocket
import ChannelBridgeTestSupport
import Testing

/// Large `Uint8List` calls and replies over a real socket between two Standard-codec channels on
/// connections themselves: both connections ask for split payloads, and the
/// bytes arrive intact whether the list is the whole value (split) or inside another (not).
@Suite struct SplitPayloadOverSocketTests {
    @Test func largeByteListsGoBothWaysIntact() async throws {
        try await withHangGuard { () async throws in
            let hostConnections = Collector<MessengerConnection>(name: "host connections")
            let (listener, directory) = try SocketConnectionTests.serve { connection in
                MethodChannel(name: "bulk", messenger: connection.messenger).setSynchronousMethodCallHandler { call in
                    call.method == "wrap" ? .list([call.arguments]) : call.arguments
                }
                hostConnections.append(connection.messenger)
            }
            defer { directory.remove() }
            let client = try await SocketConnection.connect(to: listener.path, options: .forTests)
            let channel = MethodChannel(name: "bulk", messenger: client.messenger)
            let host = try await hostConnections.first(1)[0]
            #expect(client.messenger.splitting.splitsReplies)
            #expect(host.splitting.splitsRequests(onChannel: "bulk"))

            let bytes = (0..<((1 << 20) + 3)).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ $0 >> 12) }
            #expect(try await channel.invokeMethod("echo", arguments: .uint8List(bytes)) == .uint8List(bytes))
            #expect(try await channel.invokeMethod("wrap", arguments: .uint8List(bytes)) == .list([.uint8List(bytes)]))
            #expect(
                try await channel.invokeMethod("echo", arguments: .list([.uint8List(bytes)]))
                    == .list([.uint8List(bytes)]))
            client.close()
            await client.waitUntilClosed()
            listener.close()
            await listener.waitUntilClosed()
        }
    }
}

import ChannelBridgeChannels
import ChannelBridgeCodec
import ChannelBridgeMessenger
import ChannelBridgeTestSupport
import ChannelBridgeTesting
import Flutter
import Foundation
import Testing

/// `FlutterEngine.serveReflection()`: an engine on a messenger of its own lists the `Flutter`
/// channels whose handlers are set on it, closures included, without methods.
@Suite struct FlutterEngineReflectionTests {
    @Test func anEngineListsItsClosureChannelsWithKindAndCodecButNoMethods() async throws {
        let (client, host) = InMemoryMessenger.makePair()
        defer { client.close() }
        let engine = FlutterEngine(messenger: host)
        FlutterMethodChannel(name: "test/battery", binaryMessenger: engine).setMethodCallHandler { call, result in
            result(call.method == "level" ? 87 : FlutterMethodNotImplemented)
        }
        FlutterBasicMessageChannel(
            name: "test/notes", binaryMessenger: engine, codec: FlutterJSONMessageCodec.sharedInstance()
        )
        .setMessageHandler { message, reply in reply(message) }
        engine.serveReflection()
        try await withHangGuard {
            let reply = try await MethodChannel(name: ChannelCatalog.reflectionChannel, messenger: client).invokeMethod(
                "listChannels")
            #expect(
                reply.listValue?.compactMap(ChannelDescription.init) == [
                    ChannelCatalog.reflectionDescription,
                    ChannelDescription(name: "test/battery", kind: .method, codec: "standard"),
                    ChannelDescription(name: "test/notes", kind: .message, codec: "json"),
                ])
        }
    }
}

import ChannelBridgeCodec
import ChannelBridgeMessenger
import ChannelBridgeTestSupport
import Flutter
import Testing

/// `import Flutter` brings Foundation: a plugin file that imports only Flutter
/// (`Support/FoundationOnlyPlugin.swift`) compiles and runs.
@Suite struct FoundationOnlyPluginTests {
    @Test func aPluginThatImportsOnlyFlutterUsesDataTimersThreadsAndDispatch() async throws {
        let session = EngineSession()
        defer { session.close() }
        FoundationOnlyPlugin.register(with: try #require(session.engine.registrar(forPlugin: "FoundationOnlyPlugin")))
        let codec = StandardMethodCodec()
        let (bytes, timer) = try await withHangGuard {
            (
                try await session.client.send(
                    onChannel: FoundationOnlyPlugin.channelName,
                    message: try codec.encodeMethodCall(MethodCall("bytes", arguments: "abc"))),
                try await session.client.send(
                    onChannel: FoundationOnlyPlugin.channelName,
                    message: try codec.encodeMethodCall(MethodCall("timer")))
            )
        }
        // Success envelopes: a Uint8List of the text's bytes, and the string the timer sent.
        #expect(bytes == [0x00, 0x08, 0x03, 0x61, 0x62, 0x63])
        #expect(timer == [0x00, 0x07, 0x05] + Array("fired".utf8))
    }
}

import ChannelBridgeChannels
import ChannelBridgeCodec
import ChannelBridgeMessenger
import ChannelBridgePlatform
import ChannelBridgePlugins
import ChannelBridgeTestSupport
import ChannelBridgeTesting
import Testing

/// A delegate that can answer at once (issue 18) is installed by `addMethodCallDelegate` as an
/// immediate handler: its `answerImmediately(_:)` answers every call, and `handle(_:)` is not used.
@Suite struct ImmediateMethodCallDelegateTests {
    final class CountingDelegate: ImmediateMethodCallDelegate {
        let entries = LockedValue<[String]>([])

        func answerImmediately(_ call: MethodCall) throws -> MethodChannel.ImmediateResult {
            entries.withLock { $0.append("immediately \(call.method)") }
            if call.method == "slow" { return .later { .string("later") } }
            return .value(.string("now"))
        }

        func handle(_ call: MethodCall) async throws -> StandardValue {
            entries.withLock { $0.append("handle \(call.method)") }
            return try await handle(immediately: call)
        }
    }

    @Test func theRegistrarInstallsTheImmediatePath() async throws {
        try await withHangGuard { () async throws in
            let (client, host) = InMemoryMessenger.makePair()
            defer { client.close() }
            let delegate = CountingDelegate()
            let registrar = try PluginRegistry(messenger: host).registrar(forPlugin: "Counting")
            registrar.addMethodCallDelegate(delegate, channel: MethodChannel(name: "counting", messenger: host))
            let channel = MethodChannel(name: "counting", messenger: client)
            #expect(try await channel.invokeMethod("fast") == "now")
            #expect(try await channel.invokeMethod("slow") == "later")
            #expect(delegate.entries.withLock { $0 } == ["immediately fast", "immediately slow"])
        }
    }

    /// `handle(immediately:)` gives `handle(_:)` the same answers, for a caller without the
    /// immediate path.
    @Test func handleImmediatelyAnswersAsTheImmediatePathDoes() async throws {
        let delegate = CountingDelegate()
        #expect(try await delegate.handle(MethodCall("fast")) == "now")
        #expect(try await delegate.handle(MethodCall("slow")) == "later")
    }
}

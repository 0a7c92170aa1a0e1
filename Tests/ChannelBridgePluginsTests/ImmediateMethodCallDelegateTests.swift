import ChannelBridgeChannels
import ChannelBridgeCodec
import ChannelBridgeMessenger
import ChannelBridgePlatform
import ChannelBridgePlugins
import ChannelBridgeTestSupport
import ChannelBridgeTesting
import Testing

/// A delegate that can answer at once is installed by `addMethodCallDelegate` as an
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

    /// Reads a call's `key` from its bytes where it can, and says which way each call went.
    final class EncodedDelegate: ImmediateMethodCallDelegate {
        let entries = LockedValue<[String]>([])

        func answerImmediately(_ call: MethodCall) throws -> MethodChannel.ImmediateResult {
            entries.withLock { $0.append("decoded \(call.method)") }
            return .value(call.arguments["key"] ?? .null)
        }

        func answerImmediately(
            _ method: String, encodedArguments: StandardEncodedArguments
        ) throws -> MethodChannel.ImmediateResult? {
            guard let key = encodedArguments.onlyString(named: "key") else {
                entries.withLock { $0.append("declined \(method)") }
                return nil
            }
            entries.withLock { $0.append("encoded \(method) \(key)") }
            if key == "fail" { throw MethodError(code: "FAILED", message: "read from the bytes") }
            if key == "slow" { return .later { .string("later") } }
            return .value(.string("encoded \(key)"))
        }

        func handle(_ call: MethodCall) async throws -> StandardValue {
            try await handle(immediately: call)
        }
    }

    /// On a connection, a call to the method of the call before it goes to
    /// `answerImmediately(_:encodedArguments:)` first; what it declines is decoded.
    @Test func aCallToTheMethodBeforeItIsOfferedUndecoded() async throws {
        try await withHangGuard { () async throws in
            let (client, host) = InMemoryMessenger.makePair()
            defer { client.close() }
            let delegate = EncodedDelegate()
            let registrar = try PluginRegistry(messenger: host).registrar(forPlugin: "Encoded")
            registrar.addMethodCallDelegate(delegate, channel: MethodChannel(name: "encoded", messenger: host))
            let channel = MethodChannel(name: "encoded", messenger: client)
            #expect(try await channel.invokeMethod("get", arguments: ["key": "a"]) == "a")
            #expect(try await channel.invokeMethod("get", arguments: ["key": "b"]) == "encoded b")
            #expect(try await channel.invokeMethod("get", arguments: ["key": "slow"]) == "later")
            await #expect(throws: MethodError(code: "FAILED", message: "read from the bytes")) {
                try await channel.invokeMethod("get", arguments: ["key": "fail"])
            }
            #expect(try await channel.invokeMethod("get", arguments: ["key": .int32(7)]) == .int32(7))
            #expect(try await channel.invokeMethod("set", arguments: ["key": "c"]) == "c")
            #expect(
                delegate.entries.withLock { $0 } == [
                    "decoded get", "encoded get b", "encoded get slow", "encoded get fail", "declined get",
                    "decoded get", "decoded set",
                ])
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

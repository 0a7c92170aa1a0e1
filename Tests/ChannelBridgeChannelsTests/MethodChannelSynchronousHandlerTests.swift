import ChannelBridgeChannels
import ChannelBridgeCodec
import ChannelBridgeMessenger
import ChannelBridgeTestSupport
import ChannelBridgeTesting
import Testing

private struct Boom: Error, CustomStringConvertible {
    var description: String { "boom" }
}

/// `setSynchronousMethodCallHandler`: the same answers as an async handler. (That it runs with no
/// task, on a socket's reader thread, is in `SynchronousHandlerOverSocketTests`.)
@Suite struct MethodChannelSynchronousHandlerTests {
    static func serve(_ host: MessengerConnection) {
        MethodChannel(name: "sync", messenger: host).setSynchronousMethodCallHandler { call in
            switch call.method {
            case "echo": return call.arguments
            case "fail": throw MethodError(code: "E_SYNC", message: "no", details: .int32(7))
            case "boom": throw Boom()
            default: throw MethodNotImplemented()
            }
        }
    }

    @Test func answersLikeAnAsyncHandler() async throws {
        try await withHangGuard { () async throws in
            let (client, host) = InMemoryMessenger.makePair()
            defer { client.close() }
            Self.serve(host)
            let channel = MethodChannel(name: "sync", messenger: client)
            #expect(try await channel.invokeMethod("echo", arguments: ["a": 1]) == ["a": 1])
            let failed = try await #require(throws: MethodError.self) { try await channel.invokeMethod("fail") }
            #expect(failed == MethodError(code: "E_SYNC", message: "no", details: .int32(7)))
            let boom = try await #require(throws: MethodError.self) { try await channel.invokeMethod("boom") }
            #expect(boom.code == "error" && boom.message == "boom")
            let missing = try await #require(throws: ChannelError.self) { try await channel.invokeMethod("nothing") }
            #expect(missing.code == .notImplemented && missing.method == "nothing")
            // A malformed call gets the malformed envelope, as from an async handler.
            let reply = try #require(try await client.send(onChannel: "sync", message: [0x07, 0x09, 0x61]))
            guard case .error(let malformed) = try StandardMethodCodec().decodeEnvelope(reply) else {
                Issue.record("expected an error envelope")
                return
            }
            #expect(malformed.code == "malformed")
        }
    }

    @Test func largeByteListsGoOutInSegments() async throws {
        try await withHangGuard { () async throws in
            let (client, host) = InMemoryMessenger.makePair()
            defer { client.close() }
            Self.serve(host)
            let channel = MethodChannel(name: "sync", messenger: client)
            let large = (0..<200_000).map { UInt8(truncatingIfNeeded: $0 &* 5) }
            #expect(try await channel.invokeMethod("echo", arguments: .uint8List(large)) == .uint8List(large))
        }
    }

    /// A messenger without a synchronous path of its own runs the handler as an async one.
    @Test func worksOnAnyMessenger() async throws {
        let messenger = RecordingMessenger()
        MethodChannel(name: "sync", messenger: messenger).setSynchronousMethodCallHandler { call in call.arguments }
        let reply = try await messenger.deliver(
            onChannel: "sync",
            message: try StandardMethodCodec().encodeMethodCall(MethodCall("x", arguments: 3)))
        #expect(try StandardMethodCodec().decodeEnvelope(try #require(reply)) == .success(.int32(3)))
    }

    @Test func removingTheHandlerLeavesNotImplemented() async throws {
        try await withHangGuard { () async throws in
            let (client, host) = InMemoryMessenger.makePair()
            defer { client.close() }
            let owner = MethodChannel(name: "sync", messenger: host)
            owner.setSynchronousMethodCallHandler { _ in .null }
            owner.setSynchronousMethodCallHandler(nil)
            let missing = try await #require(throws: ChannelError.self) {
                try await MethodChannel(name: "sync", messenger: client).invokeMethod("x")
            }
            #expect(missing.code == .notImplemented)
        }
    }
}

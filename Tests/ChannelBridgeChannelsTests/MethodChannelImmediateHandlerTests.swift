import ChannelBridgeChannels
import ChannelBridgeCodec
import ChannelBridgeMessenger
import ChannelBridgeTestSupport
import ChannelBridgeTesting
import Testing

private struct Boom: Error, CustomStringConvertible {
    var description: String { "boom" }
}

/// `setImmediateMethodCallHandler` (package API): whether a result comes at once or from
/// the `.later` work, the caller gets the same answers as from an async handler. (That an answer
/// at once needs no task is in `SynchronousHandlerOverSocketTests`.)
@Suite struct MethodChannelImmediateHandlerTests {
    /// Each method answers at once, or, prefixed `later.`, from work in a task.
    static func serve(_ host: any BinaryMessenger) {
        MethodChannel(name: "immediate", messenger: host).setImmediateMethodCallHandler { call in
            guard call.method.hasPrefix("later.") else { return .value(try answer(call.method, call.arguments)) }
            let method = String(call.method.dropFirst("later.".count))
            return .later { try answer(method, call.arguments) }
        }
    }

    static func answer(_ method: String, _ arguments: StandardValue) throws -> StandardValue {
        switch method {
        case "echo": return arguments
        case "fail": throw MethodError(code: "E_NOW", message: "no", details: .int32(7))
        case "boom": throw Boom()
        default: throw MethodNotImplemented()
        }
    }

    @Test func answersLikeAnAsyncHandlerAtOnceAndLater() async throws {
        try await withHangGuard { () async throws in
            let (client, host) = InMemoryMessenger.makePair()
            defer { client.close() }
            Self.serve(host)
            let channel = MethodChannel(name: "immediate", messenger: client)
            for prefix in ["", "later."] {
                #expect(try await channel.invokeMethod(prefix + "echo", arguments: ["a": 1]) == ["a": 1])
                let failed = try await #require(throws: MethodError.self) {
                    try await channel.invokeMethod(prefix + "fail")
                }
                #expect(failed == MethodError(code: "E_NOW", message: "no", details: .int32(7)))
                let boom = try await #require(throws: MethodError.self) {
                    try await channel.invokeMethod(prefix + "boom")
                }
                #expect(boom.code == "error" && boom.message == "boom")
                let missing = try await #require(throws: ChannelError.self) {
                    try await channel.invokeMethod(prefix + "nothing")
                }
                #expect(missing.code == .notImplemented && missing.method == prefix + "nothing")
            }
            // A malformed call gets the malformed envelope, as from an async handler.
            let reply = try #require(try await client.send(onChannel: "immediate", message: [0x07, 0x09, 0x61]))
            guard case .error(let malformed) = try StandardMethodCodec().decodeEnvelope(reply) else {
                Issue.record("expected an error envelope")
                return
            }
            #expect(malformed.code == "malformed")
        }
    }

    /// The bytes of each reply are those an async handler gives for the same result or error.
    @Test func repliesAreByteForByteThoseOfAnAsyncHandler() async throws {
        let immediate = RecordingMessenger(), async = RecordingMessenger()
        Self.serve(immediate)
        MethodChannel(name: "immediate", messenger: async).setMethodCallHandler { call in
            try Self.answer(
                call.method.hasPrefix("later.") ? String(call.method.dropFirst(6)) : call.method, call.arguments)
        }
        let codec = StandardMethodCodec()
        for method in ["echo", "fail", "boom", "nothing", "later.echo", "later.fail", "later.boom", "later.nothing"] {
            let call = try codec.encodeMethodCall(MethodCall(method, arguments: .list([1, "two", .uint8List([3])])))
            let ours = try await immediate.deliver(onChannel: "immediate", message: call)
            let theirs = try await async.deliver(onChannel: "immediate", message: call)
            #expect(ours == theirs, "\(method)")
        }
    }
}

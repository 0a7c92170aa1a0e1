import ChannelBridgeChannels
import ChannelBridgeCodec
import ChannelBridgeMessenger
import ChannelBridgeTestSupport
import ChannelBridgeTesting
import Testing

/// A Standard `MethodChannel` on a connection itself lends its encode buffer for each call's
/// reply: replies smaller and larger than that buffer, past the lending limit, null,
/// failed and malformed, one after another, each give what the codec gives for the whole reply.
@Suite struct MethodChannelLentReplyBufferTests {
    static let codec = StandardMethodCodec()

    @Test func repliesOfEverySizeAndShapeInARow() async throws {
        try await withHangGuard { () async throws in
            let (client, peer) = InMemoryMessenger.makeRawPeer(role: .client)
            defer { client.close() }
            peer.send(.hello(Frame.Hello(role: .host, peerName: "raw host")))
            let channel = MethodChannel(name: "test/lent", messenger: client)
            let text = String(repeating: "x", count: 70)
            let list = StandardValue.list((0..<1_000).map { .int32(Int32($0)) })
            let overLimit = StandardValue.uint8List(
                [UInt8](repeating: 7, count: MessengerConnection.lentReplyBufferLimit + 10))
            let replies: [Frame.Reply] = [
                .bytes(try Self.codec.encodeSuccessEnvelope("pong")),
                .bytes(try Self.codec.encodeSuccessEnvelope(.string(text))),  // more than the 64 bytes lent
                .bytes(try Self.codec.encodeSuccessEnvelope(list)),
                .bytes(try Self.codec.encodeSuccessEnvelope(overLimit)),
                .bytes(try Self.codec.encodeSuccessEnvelope("pong")),
                .bytes(
                    try Self.codec.encodeErrorEnvelope(
                        MethodError(code: "E", message: "m", details: .int32(1)),
                        includingStacktrace: true)),
                .bytes([0x02, 0x00]),  // an unknown envelope flag
                .bytes([]),
                .null,
                .failure("HANDLER_FAILED: boom"),
                .bytes(try Self.codec.encodeSuccessEnvelope(.float64(2.5))),
            ]
            for (index, reply) in replies.enumerated() {
                async let answered: Void = peer.answer(request: index + 1, with: reply)
                let result: Result<StandardValue, any Error>
                do {
                    result = .success(try await channel.invokeMethod("get", arguments: .int32(Int32(index))))
                } catch {
                    result = .failure(error)
                }
                await answered
                switch (reply, result) {
                case (.bytes(let bytes), .success(let value)):
                    #expect(try Self.codec.decodeEnvelope(bytes) == .success(value), "reply \(index)")
                case (.bytes(let bytes), .failure(let error as MethodError)):
                    #expect(try Self.codec.decodeEnvelope(bytes) == .error(error), "reply \(index)")
                case (.bytes(let bytes), .failure(let error as ChannelError)):
                    let expected = #expect(throws: CodecError.self) { try Self.codec.decodeEnvelope(bytes) }
                    #expect(error.code == .malformedReply && error.codecError == expected, "reply \(index)")
                case (.null, .failure(let error as ChannelError)):
                    #expect(error.code == .notImplemented && error.method == "get")
                case (.failure(let text), .failure(let error as ChannelError)):
                    #expect(error.code == .handlerFailed && error.messengerError?.message == text)
                default:
                    Issue.record("reply \(index) \(reply): \(result)")
                }
            }
        }
    }
}

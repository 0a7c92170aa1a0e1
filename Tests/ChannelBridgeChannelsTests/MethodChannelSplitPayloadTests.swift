import ChannelBridgeChannels
import ChannelBridgeCodec
import ChannelBridgeMessenger
import ChannelBridgeTestSupport
import ChannelBridgeTesting
import Testing

/// A `MethodChannel` with the Standard codec on a connection itself asks for large calls and
/// replies whose value is one `Uint8List` in two parts, and decodes the list as
/// the last part. Every answer must be what the message in one piece gives: these tests compare
/// with the codec's decoding of the whole message, for the split shapes and the ones around them.
@Suite struct MethodChannelSplitPayloadTests {
    static let channelName = "test/split"
    static let codec = StandardMethodCodec()
    static let large = (0..<(FrameDecoder.directPayloadThreshold + 3_000)).map {
        UInt8(truncatingIfNeeded: $0 &* 17 &+ 9)
    }

    /// Which channels ask for split payloads: Standard ones on a connection itself, for replies,
    /// and for calls while their handler is synchronous (run in place).
    @Test func standardChannelsOnAConnectionAskForSplitPayloads() {
        let (connection, _) = InMemoryMessenger.makeRawPeer(role: .host)
        defer { connection.close() }
        _ = MethodChannel(name: "json", messenger: connection, codec: JSONMethodCodec())
        #expect(!connection.splitting.splitsReplies)
        let channel = MethodChannel(name: Self.channelName, messenger: connection)
        #expect(connection.splitting.splitsReplies)
        #expect(!connection.splitting.splitsRequests(onChannel: Self.channelName))
        channel.setSynchronousMethodCallHandler { $0.arguments }
        #expect(connection.splitting.splitsRequests(onChannel: Self.channelName))
        channel.setMethodCallHandler { $0.arguments }
        #expect(!connection.splitting.splitsRequests(onChannel: Self.channelName))
        channel.setSynchronousMethodCallHandler { $0.arguments }
        channel.setMethodCallHandler(nil)
        #expect(!connection.splitting.splitsRequests(onChannel: Self.channelName))
    }

    @Test func largeRepliesDecodeAsTheWholeReplyDoes() async throws {
        try await withHangGuard { () async throws in
            let (client, peer) = InMemoryMessenger.makeRawPeer(role: .client)
            defer { client.close() }
            peer.send(.hello(Frame.Hello(role: .host, peerName: "raw host")))
            let channel = MethodChannel(name: Self.channelName, messenger: client)
            var shortList = try Self.codec.encodeSuccessEnvelope(.uint8List(Self.large))
            shortList.removeLast()  // the list claims one byte more than the reply holds
            let replies: [[UInt8]] = [
                try Self.codec.encodeSuccessEnvelope(.uint8List(Self.large)),  // split
                try Self.codec.encodeSuccessEnvelope(.list([.uint8List(Self.large), .null])),  // not split
                try Self.codec.encodeErrorEnvelope(
                    MethodError(code: "E", message: "m", details: .uint8List(Self.large)),
                    includingStacktrace: false),
                shortList,
                try Self.codec.encodeSuccessEnvelope(.uint8List(Self.large)) + [0],  // a trailing byte
            ]
            // Each reply twice: awaited in the channel's own frame, and through a call with a timeout.
            for (index, reply) in (replies + replies).enumerated() {
                async let answered: Void = peer.answer(request: index + 1, with: .bytes(reply))
                let result: Result<StandardValue, any Error>
                do {
                    let timeout: Duration? = index < replies.count ? nil : .seconds(600)
                    result = .success(try await channel.invokeMethod("get", timeout: timeout))
                } catch {
                    result = .failure(error)
                }
                await answered
                switch (result, Result { () throws(CodecError) in try Self.codec.decodeEnvelope(reply) }) {
                case (.success(let value), .success(.success(let expected))):
                    #expect(value == expected, "reply \(index)")
                case (.failure(let error as MethodError), .success(.error(let expected))):
                    #expect(error == expected, "reply \(index)")
                case (.failure(let error as ChannelError), .failure(let expected)):
                    #expect(error.code == .malformedReply && error.codecError == expected, "reply \(index)")
                case (let result, let whole):
                    Issue.record("reply \(index): \(result), but the whole reply decodes to \(whole)")
                }
            }
        }
    }

    @Test func largeCallsReachAnInPlaceHandlerAsTheWholeCallDoes() async throws {
        try await withHangGuard { () async throws in
            let (host, peer) = InMemoryMessenger.makeRawPeer(role: .host)
            defer { host.close() }
            peer.send(.hello(Frame.Hello(role: .client, peerName: "raw client")))
            let channel = MethodChannel(name: Self.channelName, messenger: host)
            channel.setSynchronousMethodCallHandler { call in
                guard case .uint8List(let bytes) = call.arguments else { return .string("\(call.method): other") }
                return .list([.string(call.method), .int64(Int64(bytes.count)), .bool(bytes == Self.large)])
            }
            var shortList = try Self.codec.encodeMethodCall(MethodCall("short", arguments: .uint8List(Self.large)))
            shortList.removeLast()
            let calls: [[UInt8]] = [
                try Self.codec.encodeMethodCall(MethodCall("list", arguments: .uint8List(Self.large))),  // split
                try Self.codec.encodeMethodCall(MethodCall("nested", arguments: .list([.uint8List(Self.large)]))),
                shortList,
            ]
            for (index, call) in calls.enumerated() {
                peer.send(.request(id: UInt32(index + 1), channel: Self.channelName, payload: call))
            }
            let frames = await peer.waitForFrames { frames in
                frames.filter { if case .reply = $0 { true } else { false } }.count == calls.count
            }
            let replies = frames.compactMap { frame -> [UInt8]? in
                if case .reply(_, .bytes(let bytes)) = frame { bytes } else { nil }
            }
            #expect(
                try replies.map { try Self.codec.decodeEnvelope($0) } == [
                    .success(.list([.string("list"), .int64(Int64(Self.large.count)), .bool(true)])),
                    .success(.string("nested: other")),
                    .error(MethodError(code: "malformed", message: try Self.malformedMessage(shortList))),
                ])
        }
    }

    /// What the channel answers a call it cannot decode: the codec's error for the whole call.
    static func malformedMessage(_ call: [UInt8]) throws -> String {
        guard case .failure(let error) = Result(catching: { () throws(CodecError) in try codec.decodeMethodCall(call) })
        else {
            Issue.record("the short call decoded")
            return ""
        }
        return error.description
    }
}

import ChannelBridgeChannels
import ChannelBridgeCodec
import ChannelBridgeMessenger
import ChannelBridgePlatform
import ChannelBridgeTestSupport
import ChannelBridgeTesting
import Testing

/// `setSynchronousMethodCallHandler` with the Standard codec on a `MessengerConnection` itself:
/// the call is decoded where it was received and the reply encoded into the connection's reused
/// buffer. Every answer is compared byte for byte with what the codec makes of it.
@Suite struct MethodChannelInPlaceHandlerTests {
    static let channelName = "test/in-place"
    static let codec = StandardMethodCodec()

    /// A host-side channel with `handler`, and a raw client peer that has said HELLO.
    static func host(
        maxFrameLength: Int? = nil,
        _ handler: @escaping MethodChannel.SynchronousHandler
    ) -> (MethodChannel, MessengerConnection, InMemoryMessenger.RawPeer) {
        let (host, peer) = InMemoryMessenger.makeRawPeer(role: .host)
        peer.send(.hello(Frame.Hello(role: .client, peerName: "raw client", maxFrameLength: maxFrameLength)))
        let channel = MethodChannel(name: channelName, messenger: host)
        channel.setSynchronousMethodCallHandler(handler)
        return (channel, host, peer)
    }

    static func request(_ id: UInt32, _ method: String, _ arguments: StandardValue = .null) throws -> Frame {
        .request(
            id: id, channel: channelName, payload: try codec.encodeMethodCall(MethodCall(method, arguments: arguments)))
    }

    /// The REPLY frames received so far, by id.
    static func replies(_ peer: InMemoryMessenger.RawPeer) throws -> [UInt32: Frame.Reply] {
        var replies: [UInt32: Frame.Reply] = [:]
        for frame in try peer.receivedFrames() {
            if case .reply(let id, let result) = frame { replies[id] = result }
        }
        return replies
    }

    static let echo: MethodChannel.SynchronousHandler = { call in
        switch call.method {
        case "echo": return call.arguments
        case "fail": throw MethodError(code: "FAILED", message: "asked to", details: call.arguments)
        case "crash": throw ChannelTestError()
        default: throw MethodNotImplemented()
        }
    }

    struct ChannelTestError: Error, CustomStringConvertible {
        var description: String { "the handler crashed" }
    }

    @Test func requestsInOneReadEachGetTheirOwnReplyFromTheReusedBuffer() throws {
        let (_, host, peer) = Self.host(Self.echo)
        defer { host.close() }
        var bytes: [UInt8] = []
        let arguments: [StandardValue] = [
            "a much longer string than the first one, to grow the buffer", 7, ["k": [1.5, true]], "x",
        ]
        for (index, argument) in arguments.enumerated() {
            FrameEncoder.encodeValidated(try Self.request(UInt32(index + 1), "echo", argument), into: &bytes)
        }
        peer.send(bytes)
        let replies = try Self.replies(peer)
        for (index, argument) in arguments.enumerated() {
            #expect(replies[UInt32(index + 1)] == .bytes(try Self.codec.encodeSuccessEnvelope(argument)))
        }
    }

    @Test func errorsNullAndMalformedCallsAreAnsweredAsByTheGeneralPath() throws {
        let (_, host, peer) = Self.host(Self.echo)
        defer { host.close() }
        peer.send(try Self.request(1, "fail", [1, 2]))
        peer.send(try Self.request(2, "nothing"))
        peer.send(try Self.request(3, "crash"))
        peer.send(.request(id: 4, channel: Self.channelName, payload: [0x07, 0x02]))  // a string cut short
        peer.send(.request(id: 5, channel: Self.channelName, payload: nil))
        let replies = try Self.replies(peer)
        #expect(
            replies[1]
                == .bytes(
                    try Self.codec.encodeErrorEnvelope(
                        MethodError(code: "FAILED", message: "asked to", details: [1, 2]))))
        #expect(replies[2] == .null)
        #expect(
            replies[3]
                == .bytes(
                    try Self.codec.encodeErrorEnvelope(MethodError(code: "error", message: "the handler crashed"))))
        for id: UInt32 in [4, 5] {
            guard case .bytes(let envelope)? = replies[id],
                case .error(let error) = try Self.codec.decodeEnvelope(envelope)
            else {
                Issue.record("request \(id) got \(String(describing: replies[id]))")
                continue
            }
            #expect(error.code == "malformed")
        }
    }

    @Test func aLargeByteValueGoesOutUncopiedAndTheNextReplyIsRight() throws {
        let (_, host, peer) = Self.host(Self.echo)
        defer { host.close() }
        let big = StandardValue.uint8List((0..<(100 << 10)).map { UInt8(truncatingIfNeeded: $0 &* 7) })
        peer.send(try Self.request(1, "echo", big))
        peer.send(try Self.request(2, "echo", "small again"))
        let replies = try Self.replies(peer)
        #expect(replies[1] == .bytes(try Self.codec.encodeSuccessEnvelope(big)))
        #expect(replies[2] == .bytes(try Self.codec.encodeSuccessEnvelope("small again")))
    }

    @Test func aReplyOverThePeersMaximumIsReplyTooLarge() throws {
        let (_, host, peer) = Self.host(maxFrameLength: 256, Self.echo)
        defer { host.close() }
        peer.send(try Self.request(1, "echo", .string(String(repeating: "z", count: 300))))
        peer.send(try Self.request(2, "echo", "fits"))
        let replies = try Self.replies(peer)
        guard case .bytes(let envelope)? = replies[1], case .error(let error) = try Self.codec.decodeEnvelope(envelope)
        else {
            Issue.record("got \(String(describing: replies[1]))")
            return
        }
        #expect(error.code == MethodChannel.replyTooLargeErrorCode)
        #expect(error.details["method"] == "echo")
        #expect(replies[2] == .bytes(try Self.codec.encodeSuccessEnvelope("fits")))
    }

    @Test func aMessageOnTheChannelRunsTheHandlerAndIsNotAnswered() throws {
        let seen = LockedValue<[String]>([])
        let (_, host, peer) = Self.host { call in
            seen.withLock { $0.append(call.method) }
            return call.arguments
        }
        defer { host.close() }
        peer.send(.message(channel: Self.channelName, payload: try Self.codec.encodeMethodCall(MethodCall("posted"))))
        peer.send(try Self.request(1, "called"))
        #expect(seen.withLock { $0 } == ["posted", "called"])
        #expect(try Self.replies(peer).keys.sorted() == [1])
    }
}

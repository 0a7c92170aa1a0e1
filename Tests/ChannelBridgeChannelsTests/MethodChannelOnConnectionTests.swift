import ChannelBridgeChannels
import ChannelBridgeCodec
@_spi(Benchmarks) import ChannelBridgeMessenger
import ChannelBridgeTestSupport
import ChannelBridgeTesting
import Testing

/// `invokeMethod` on a `MessengerConnection` itself, the path that awaits the reply in the
/// channel's own frame, against a raw peer that sees and sends frames: the same frames,
/// errors and cancellation as through any other messenger.
@Suite struct MethodChannelOnConnectionTests {
    static let channelName = "test/direct"
    static let codec = StandardMethodCodec()

    static func rawClient() -> (MessengerConnection, InMemoryMessenger.RawPeer) {
        let (client, peer) = InMemoryMessenger.makeRawPeer(role: .client)
        peer.send(.hello(Frame.Hello(role: .host, peerName: "raw host")))
        return (client, peer)
    }

    static func requests(in frames: [Frame]) -> [(id: UInt32, channel: String, payload: [UInt8]?)] {
        frames.compactMap { frame in
            if case .request(let id, let channel, let payload) = frame { return (id, channel, payload) }
            return nil
        }
    }

    static func cancelIDs(in frames: [Frame]) -> [UInt32] {
        frames.compactMap { frame in
            if case .cancel(let id) = frame { return id }
            return nil
        }
    }

    /// Waits for the `count`th REQUEST and returns its id.
    static func requestID(_ count: Int, from peer: InMemoryMessenger.RawPeer) async -> UInt32 {
        let frames = await peer.waitForFrames { requests(in: $0).count >= count }
        return requests(in: frames)[count - 1].id
    }

    /// Runs `body`, under a hang guard naming the test, with a channel on a client connection
    /// whose raw peer has said HELLO; closes the connection afterwards.
    static func withClient(
        function: String = #function, fileID: String = #fileID, line: Int = #line,
        _ body: @escaping @Sendable (MethodChannel, MessengerConnection, InMemoryMessenger.RawPeer) async throws -> Void
    )
        async throws
    {
        try await withHangGuard(function: function, fileID: fileID, line: line) { () async throws in
            let (client, peer) = rawClient()
            defer { client.close() }
            try await body(MethodChannel(name: channelName, messenger: client), client, peer)
        }
    }

    /// Cancels `call` and checks that it failed with `CancellationError` and that exactly request
    /// `id` was withdrawn with CANCEL.
    static func expectWithdrawn(
        _ call: Task<StandardValue, any Error>, id: UInt32,
        peer: InMemoryMessenger.RawPeer
    ) async {
        call.cancel()
        await #expect(throws: CancellationError.self) { try await call.value }
        let frames = await peer.waitForFrames { !cancelIDs(in: $0).isEmpty }
        #expect(cancelIDs(in: frames) == [id])
    }

    @Test func aCallIsOneRequestWithTheEncodedCallAndTheReplyIsDecoded() async throws {
        try await Self.withClient { (channel, client, peer) async throws in
            let call = Task { try await channel.invokeMethod("greet", arguments: ["name": "Ada"]) }
            let frames = await peer.waitForFrames { !Self.requests(in: $0).isEmpty }
            let request = try #require(Self.requests(in: frames).first)
            #expect(request.channel == Self.channelName)
            #expect(
                request.payload == (try Self.codec.encodeMethodCall(MethodCall("greet", arguments: ["name": "Ada"]))))
            peer.send(.reply(id: request.id, result: .bytes(try Self.codec.encodeSuccessEnvelope("hello Ada"))))
            #expect(try await call.value == "hello Ada")
        }
    }

    /// Calls encode into a reused buffer: each request carries exactly its own call's bytes, after
    /// a longer one, and while another call is still in flight.
    @Test func eachRequestCarriesExactlyItsOwnCallAfterLongerAndBesideWaitingOnes() async throws {
        try await Self.withClient { (channel, client, peer) async throws in
            let arguments: [StandardValue] = [
                .string(String(repeating: "long ", count: 200)), "short", ["k": 1], .null,
            ]
            var expected: [[UInt8]] = []
            for (index, argument) in arguments.enumerated() {
                expected.append(try Self.codec.encodeMethodCall(MethodCall("m\(index)", arguments: argument)))
            }
            // One call after another, then two at once.
            for index in 0..<2 {
                let call = Task { try await channel.invokeMethod("m\(index)", arguments: arguments[index]) }
                peer.send(
                    .reply(
                        id: await Self.requestID(index + 1, from: peer),
                        result: .bytes(try Self.codec.encodeSuccessEnvelope(.null))))
                _ = try await call.value
            }
            let third = Task { try await channel.invokeMethod("m2", arguments: arguments[2]) }
            let thirdID = await Self.requestID(3, from: peer)
            let fourth = Task { try await channel.invokeMethod("m3", arguments: arguments[3]) }
            let fourthID = await Self.requestID(4, from: peer)
            for id in [fourthID, thirdID] {
                peer.send(.reply(id: id, result: .bytes(try Self.codec.encodeSuccessEnvelope(.int32(Int32(id))))))
            }
            #expect(try await third.value == .int32(Int32(thirdID)))
            #expect(try await fourth.value == .int32(Int32(fourthID)))
            #expect(Self.requests(in: try peer.receivedFrames()).map(\.payload) == expected)
        }
    }

    @Test func aNullReplyIsNotImplementedNamingTheMethod() async throws {
        try await Self.withClient { (channel, client, peer) async throws in
            let call = Task { try await channel.invokeMethod("missing") }
            peer.send(.reply(id: await Self.requestID(1, from: peer), result: .null))
            let error = await #expect(throws: ChannelError.self) { try await call.value }
            #expect(error?.code == .notImplemented)
            #expect(error?.channel == Self.channelName && error?.method == "missing")
        }
    }

    @Test func aFailedReplyIsTheMessengersErrorNamingTheMethod() async throws {
        try await Self.withClient { (channel, client, peer) async throws in
            let call = Task { try await channel.invokeMethod("explode") }
            peer.send(.reply(id: await Self.requestID(1, from: peer), result: .failure("the handler crashed")))
            let error = await #expect(throws: ChannelError.self) { try await call.value }
            #expect(error?.code == .handlerFailed)
            #expect(error?.method == "explode" && error?.channel == Self.channelName)
            #expect(error?.messengerError?.code == .handlerFailed)
            #expect(error?.messengerError?.message == "the handler crashed")
        }
    }

    @Test func aChannelNameTheFrameCannotCarryIsRefusedUnsent() async throws {
        try await withHangGuard { () async throws in
            let (client, peer) = Self.rawClient()
            defer { client.close() }
            let channel = MethodChannel(name: "", messenger: client)
            let error = await #expect(throws: ChannelError.self) { try await channel.invokeMethod("m") }
            #expect(error?.code == .invalidChannel && error?.method == "m")
            #expect(Self.requests(in: try peer.receivedFrames()).isEmpty)
        }
    }

    @Test func theEndOfTheConnectionFailsAWaitingCall() async throws {
        try await Self.withClient { (channel, client, peer) async throws in
            let call = Task { try await channel.invokeMethod("slow") }
            _ = await Self.requestID(1, from: peer)
            peer.sendEnd()
            let error = await #expect(throws: ChannelError.self) { try await call.value }
            #expect(error?.code == .connectionClosed && error?.method == "slow")
        }
    }

    @Test func cancellingTheCallerSendsCancelForItsRequest() async throws {
        try await Self.withClient { (channel, client, peer) async throws in
            let call = Task { try await channel.invokeMethod("slow") }
            await Self.expectWithdrawn(call, id: await Self.requestID(1, from: peer), peer: peer)
        }
    }

    @Test func insideACallScopeCancellingTheTaskWithdrawsTheWaitingCall() async throws {
        try await Self.withClient { (channel, client, peer) async throws in
            let call = Task {
                try await client.withCallScope {
                    let first = try await channel.invokeMethod("first")
                    #expect(first == 1)
                    return try await channel.invokeMethod("second")
                }
            }
            peer.send(
                .reply(id: await Self.requestID(1, from: peer), result: .bytes(try Self.codec.encodeSuccessEnvelope(1)))
            )
            await Self.expectWithdrawn(call, id: await Self.requestID(2, from: peer), peer: peer)
        }
    }

    @Test func aCallFromACancelledTaskIsRefusedUnsent() async throws {
        try await Self.withClient { (channel, client, peer) async throws in
            let gate = Inbox<Void>()
            let call = Task { () async throws -> StandardValue in
                await gate.next()
                return try await channel.invokeMethod("late")
            }
            call.cancel()
            gate.put(())
            await #expect(throws: CancellationError.self) { try await call.value }
            #expect(Self.requests(in: try peer.receivedFrames()).isEmpty)
        }
    }
}

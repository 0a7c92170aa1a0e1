@testable import ChannelBridgeHost
import ChannelBridgeChannels
import ChannelBridgeCodec
import ChannelBridgeMessenger
import ChannelBridgePlatform
import Testing

/// The messengers a host session wraps its connection in (`ShutdownGate`, `TracingMessenger`, as
/// `SessionSetup` stacks them) forward every fast path of `FastPathMessenger`: a channel on a
/// wrapped session installs synchronous and segmented handlers and sends in segments, exactly as
/// on the bare connection, and the `listen` reply still goes out before the stream's first event.
@Suite struct SessionWrapperFastPathTests {
    /// The stacks a session can have: with and without `--trace`.
    static func wrapped(_ base: any BinaryMessenger) -> [any BinaryMessenger] {
        let request = ExtensionRequest(inputItems: [])
        let tracing = TracingMessenger(base: base, label: "test", binaryChannels: [], log: { _ in })
        return [
            ShutdownGate(base: base, request: request, extensionChannel: HostOptions.defaultChannel),
            ShutdownGate(base: tracing, request: request, extensionChannel: HostOptions.defaultChannel),
        ]
    }

    @Test func channelsOnAWrappedSessionTakeTheFastPaths() async throws {
        for index in 0..<2 {
            let probe = FastPathProbe()
            let messenger = Self.wrapped(probe)[index]
            #expect(messenger.fastPath?.outboundFlow === probe.flow)
            #expect(messenger.fastPath?.frameLimit === probe.limit)

            MethodChannel(name: "sync", messenger: messenger).setSynchronousMethodCallHandler { _ in .null }
            MethodChannel(name: "async", messenger: messenger).setMethodCallHandler { _ in .null }
            MethodChannel(name: "immediate", messenger: messenger).setImmediateMethodCallHandler { _ in .value(.null) }
            EventChannel(name: "events", messenger: messenger).setStreamHandler(NoEvents())
            let large = MethodChannel(name: "large", messenger: messenger)
            // A Uint8List of 64 KiB or more is sent from its own array: the segmented send.
            _ = try? await large.invokeMethod("put", arguments: .uint8List([UInt8](repeating: 7, count: 1 << 16)))
            _ = try? await large.invokeMethod("small")

            #expect(probe.calls == [
                "setSynchronousMessageHandler sync",
                "setSegmentedMessageHandler async",
                "setImmediateMessageHandler immediate",
                "setSegmentedMessageHandler events",
                "send(segments:) large",
                "send(message:) large",
            ], "stack \(index)")
        }
    }

    /// A gated synchronous handler still refuses requests once the extension request has ended.
    @Test func theGateStillAppliesOnTheSynchronousPath() throws {
        let probe = FastPathProbe()
        let request = ExtensionRequest(inputItems: [])
        let gate = ShutdownGate(base: probe, request: request, extensionChannel: HostOptions.defaultChannel)
        MethodChannel(name: "sync", messenger: gate).setSynchronousMethodCallHandler { _ in .string("ok") }
        let handler = try #require(probe.synchronousHandler(on: "sync"))
        let call = try StandardMethodCodec().encodeMethodCall(MethodCall("get"))
        #expect(try handler(call)?.joined == (try StandardMethodCodec().encodeSuccessEnvelope(.string("ok"))))
        _ = request.end(.completed, returnedItems: nil, error: nil, endingReply: OneShotSignal())
        #expect(throws: HostShuttingDown.self) { try handler(call) }
    }

    /// The gate refuses on the immediate path too, and the tracing wrapper logs an answer given
    /// at once as it is given and one from `.later` work when that work ends.
    @Test func theGateAndTheTraceApplyOnTheImmediatePath() async throws {
        let probe = FastPathProbe()
        let request = ExtensionRequest(inputItems: [])
        let lines = LockedValue<[String]>([])
        let tracing = TracingMessenger(base: probe, label: "s1", binaryChannels: [], log: { line in lines.withLock { $0.append(line) } })
        let gate = ShutdownGate(base: tracing, request: request, extensionChannel: HostOptions.defaultChannel)
        // The tracing handler holds the tracing messenger, whose base is the probe holding the
        // handler: a cycle a session breaks by removing its handlers at teardown, as here.
        defer { probe.forgetHandlers() }
        MethodChannel(name: "imm", messenger: gate).setImmediateMethodCallHandler { call in
            call.method == "now" ? .value(.string("at once")) : .later { .string("in a task") }
        }
        let handler = try #require(probe.immediateHandler(on: "imm"))
        let codec = StandardMethodCodec()
        guard case .now(let now) = try handler(try codec.encodeMethodCall(MethodCall("now"))) else {
            Issue.record("an answer at hand was not given at once")
            return
        }
        #expect(now?.joined == (try codec.encodeSuccessEnvelope(.string("at once"))))
        guard case .later(let work) = try handler(try codec.encodeMethodCall(MethodCall("slow"))) else {
            Issue.record("work that suspends was answered at once")
            return
        }
        #expect(lines.withLock { $0.count } == 3)   // two calls, one reply so far
        #expect(try await work().reply?.joined == (try codec.encodeSuccessEnvelope(.string("in a task"))))
        #expect(lines.withLock { $0 } == [
            "s1 call imm now null", "s1 reply imm now null → success \"at once\"",
            "s1 call imm slow null", "s1 reply imm slow null → success \"in a task\"",
        ])
        _ = request.end(.completed, returnedItems: nil, error: nil, endingReply: OneShotSignal())
        #expect(throws: HostShuttingDown.self) { try handler(try codec.encodeMethodCall(MethodCall("now"))) }
    }

    /// On a real connection under both wrappers, the events a stream handler sends from
    /// `onListen` leave after the `listen` reply: the after-reply work travels through them.
    @Test func theListenReplyPrecedesTheFirstEventThroughTheWrappers() async throws {
        for index in 0..<2 {
            let (connection, frames) = FrameLog.connection()
            let messenger = Self.wrapped(connection)[index]
            EventChannel(name: "ticks", messenger: messenger).setStreamHandler(TwoEventsAtOnce())
            frames.deliver(.hello(Frame.Hello(role: .client, peerName: "test")), to: connection)
            let listen = try StandardMethodCodec().encodeMethodCall(MethodCall("listen"))
            frames.deliver(.request(id: 1, channel: "ticks", payload: listen), to: connection)

            var kinds: [String] = []
            for await frame in frames.stream {
                switch frame {
                case .hello: continue
                case .reply(let id, _): kinds.append("reply \(id)")
                case .message(let channel, _): kinds.append("message \(channel)")
                default: kinds.append("\(frame.kind)")
                }
                if kinds.count == 3 { break }
            }
            #expect(kinds == ["reply 1", "message ticks", "message ticks"], "stack \(index)")
            connection.close()
        }
    }
}

/// A `FastPathMessenger` that records which entry point each channel used.
private final class FastPathProbe: FastPathMessenger {
    let flow = OutboundFlow(highWater: 1 << 20, lowWater: 1 << 10)
    let limit = FrameLimit(own: 1 << 24)
    private let state = LockedValue<(calls: [String], synchronous: [String: SynchronousMessageHandler],
                                     immediate: [String: ImmediateMessageHandler])>(([], [:], [:]))

    var calls: [String] { state.withLock { $0.calls } }

    func synchronousHandler(on channel: String) -> SynchronousMessageHandler? {
        state.withLock { $0.synchronous[channel] }
    }

    func immediateHandler(on channel: String) -> ImmediateMessageHandler? {
        state.withLock { $0.immediate[channel] }
    }

    /// Drops the handlers it keeps, as removing them from a session does.
    func forgetHandlers() {
        state.withLock { state in
            state.synchronous = [:]
            state.immediate = [:]
        }
    }

    private func record(_ call: String) -> MessageHandlerToken {
        state.withLock { $0.calls.append(call) }
        return MessageHandlerToken(channel: "", id: 0)
    }

    func send(onChannel channel: String, message: [UInt8]?) async throws -> [UInt8]? {
        _ = record("send(message:) \(channel)")
        return nil
    }

    func post(onChannel channel: String, message: [UInt8]?) throws {
        _ = record("post \(channel)")
    }

    func setMessageHandler(onChannel channel: String, _ handler: BinaryMessageHandler?) -> MessageHandlerToken {
        record("setMessageHandler \(channel)")
    }

    func removeMessageHandler(_ token: MessageHandlerToken) {}

    func onClose(_ callback: @escaping @Sendable (MessengerError) -> Void) {}

    func send(onChannel channel: String, segments: MessageSegments) async throws -> [UInt8]? {
        _ = record("send(segments:) \(channel)")
        return nil
    }

    func setSegmentedMessageHandler(onChannel channel: String, _ handler: SegmentedMessageHandler?) -> MessageHandlerToken {
        record("setSegmentedMessageHandler \(channel)")
    }

    func setSynchronousMessageHandler(onChannel channel: String, _ handler: SynchronousMessageHandler?) -> MessageHandlerToken {
        state.withLock { $0.synchronous[channel] = handler }
        return record("setSynchronousMessageHandler \(channel)")
    }

    func setImmediateMessageHandler(onChannel channel: String, _ handler: ImmediateMessageHandler?) -> MessageHandlerToken {
        state.withLock { $0.immediate[channel] = handler }
        return record("setImmediateMessageHandler \(channel)")
    }

    var outboundFlow: OutboundFlow? { flow }
    var frameLimit: FrameLimit? { limit }
}

/// The outbound side of a host connection, handing every frame written to the test.
private final class FrameLog: FrameTransport {
    let stream: AsyncStream<Frame>
    private let continuation: AsyncStream<Frame>.Continuation
    private let decoder = LockedValue(FrameDecoder(maxFrameLength: Int(UInt32.max)))

    private init() {
        (stream, continuation) = AsyncStream.makeStream(of: Frame.self)
    }

    static func connection() -> (MessengerConnection, FrameLog) {
        let log = FrameLog()
        return (MessengerConnection(role: .host, transport: log), log)
    }

    func write(_ bytes: [UInt8]) {
        let frames = decoder.withLock { decoder -> [Frame] in
            decoder.append(bytes)
            var frames: [Frame] = []
            while let frame = try? decoder.next() { frames.append(frame) }
            return frames
        }
        for frame in frames { continuation.yield(frame) }
    }

    func close() {
        continuation.finish()
    }

    func deliver(_ frame: Frame, to connection: MessengerConnection) {
        var bytes: [UInt8] = []
        FrameEncoder.encodeValidated(frame, into: &bytes)
        connection.receive(bytes)
    }
}

private struct NoEvents: StreamHandler {
    func onListen(arguments: StandardValue, events: EventSink) async throws {}
    func onCancel(arguments: StandardValue) async throws {}
}

private struct TwoEventsAtOnce: StreamHandler {
    func onListen(arguments: StandardValue, events: EventSink) async throws {
        events.success(.int32(1))
        events.success(.int32(2))
    }

    func onCancel(arguments: StandardValue) async throws {}
}

@testable import ChannelBridgeHost
import ChannelBridgeBytes
import ChannelBridgeChannels
import ChannelBridgeCodec
import ChannelBridgeMessenger
import ChannelBridgePlatform
import ChannelBridgeTestSupport
import Testing

/// The messenger a traced host session wraps its connection in (`TracingMessenger`, as
/// `SessionSetup` does with `--trace`) forwards every fast path of `FastPathMessenger`: a channel on
/// a traced session installs its handler in the one package shape (answered where read, or later,
/// with the payload splitter of the Standard codec) and sends in segments, exactly as on the bare
/// connection, and the `listen` reply still goes out before the stream's first event.
/// An untraced session's channels are on the connection itself (`SessionSetupTests`).
@Suite struct SessionWrapperFastPathTests {
    static func traced(_ base: any BinaryMessenger) -> any BinaryMessenger {
        TracingMessenger(base: base, label: "test", binaryChannels: [], log: { _ in })
    }

    @Test func channelsOnATracedSessionTakeTheFastPaths() async throws {
        let probe = FastPathProbe()
        let messenger = Self.traced(probe)
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

        #expect(
            probe.calls == [
                "setMessageHandler sync now split",
                "setMessageHandler async later",
                "setMessageHandler immediate later split",
                "setMessageHandler events later",
                "send(payload:) large",
                "send(message:) large",
            ])
    }

    /// The tracing wrapper logs an answer given at once (written into the lent buffer) as it is
    /// given, and one from `.later` work when that work ends.
    @Test func theTraceAppliesOnTheImmediatePath() async throws {
        let probe = FastPathProbe()
        let lines = LockedValue<[String]>([])
        let tracing = TracingMessenger(
            base: probe, label: "s1", binaryChannels: [], log: { line in lines.withLock { $0.append(line) } })
        // The tracing handler holds the tracing messenger, whose base is the probe holding the
        // handler: a cycle a session breaks by removing its handlers at teardown, as here.
        defer { probe.forgetHandlers() }
        MethodChannel(name: "imm", messenger: tracing).setImmediateMethodCallHandler { call in
            call.method == "now" ? .value(.string("at once")) : .later { .string("in a task") }
        }
        let handler = try #require(probe.handler(on: "imm"))
        let codec = StandardMethodCodec()
        var buffer: [UInt8] = []
        let now = try HandlerMessage.reading(try codec.encodeMethodCall(MethodCall("now"))) { try handler($0, &buffer) }
        guard case .written(let count) = now else {
            Issue.record("an answer at hand was not given at once")
            return
        }
        #expect(Array(buffer[..<count]) == (try codec.encodeSuccessEnvelope(.string("at once"))))
        let slow = try HandlerMessage.reading(try codec.encodeMethodCall(MethodCall("slow"))) {
            try handler($0, &buffer)
        }
        guard case .later(let work) = slow else {
            Issue.record("work that suspends was answered at once")
            return
        }
        #expect(lines.withLock { $0.count } == 3)  // two calls, one reply so far
        #expect(try await work.run().reply?.array == (try codec.encodeSuccessEnvelope(.string("in a task"))))
        #expect(
            lines.withLock { $0 } == [
                "s1 call imm now null", "s1 reply imm now null → success \"at once\"",
                "s1 call imm slow null", "s1 reply imm slow null → success \"in a task\"",
            ])
    }

    /// On a real connection, bare and traced, the events a stream handler sends from `onListen`
    /// leave after the `listen` reply: the after-reply work travels through the wrapper.
    @Test func theListenReplyPrecedesTheFirstEventWithAndWithoutTheTrace() async throws {
        for index in 0..<2 {
            let (connection, frames) = FrameLog.connection()
            let messenger = index == 0 ? connection : Self.traced(connection)
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

    func write(
        frameOfLength length: Int, followedBy payloads: [[UInt8]], flush: Bool,
        _ encode: (UnsafeMutableRawBufferPointer) -> Void
    ) {
        let bytes = Self.frameBytes(length: length, followedBy: payloads, encode)
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

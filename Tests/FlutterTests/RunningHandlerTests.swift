import ChannelBridgeCodec
import ChannelBridgeMessenger
import ChannelBridgePlatform
import ChannelBridgeTestSupport
import Flutter
import Testing

/// What a Flutter-style handler's thread has recorded while it runs, for the report of a fatal
/// signal (`TrapReportTests` has the report itself, in a child process).
@Suite struct RunningHandlerTests {
    @Test func methodMessageAndEventHandlersRecordTheirChannelAndMethodWhileTheyRun() async throws {
        let session = EngineSession()
        defer { session.close() }
        let (methods, messages, events) = (uniqueChannel("method"), uniqueChannel("message"), uniqueChannel("events"))
        let seen = Collector<String>()
        func describe(_ running: (channel: String, method: String?)?) -> String {
            running.map { "\($0.channel) \($0.method ?? "-")" } ?? "nothing"
        }
        FlutterMethodChannel(name: methods, binaryMessenger: session.engine).setMethodCallHandler { _, result in
            seen.append(describe(RunningHandler.current))
            result(nil)
        }
        FlutterBasicMessageChannel(name: messages, binaryMessenger: session.engine).setMessageHandler { _, reply in
            seen.append(describe(RunningHandler.current))
            reply(nil)
        }
        FlutterEventChannel(name: events, binaryMessenger: session.engine).setStreamHandler(
            RecordingStreamHandler(seen))
        let codec = StandardMethodCodec()
        try await withHangGuard {
            _ = try await session.client.send(
                onChannel: methods, message: try codec.encodeMethodCall(MethodCall("probe")))
            _ = try await session.client.send(onChannel: messages, message: [0x00])
            _ = try await session.client.send(
                onChannel: events, message: try codec.encodeMethodCall(MethodCall("listen")))
        }
        #expect(try await seen.first(3) == ["\(methods) probe", "\(messages) -", "\(events) listen"])
        #expect(RunningHandler.current == nil)  // nothing recorded on this thread, or left behind
    }

    @Test func aNestedRecordGivesTheOuterOneBack() {
        RunningHandler.recording(channel: "outer", method: nil) {
            RunningHandler.recording(channel: "inner/é", method: "m") {
                #expect(RunningHandler.current?.channel == "inner/é" && RunningHandler.current?.method == "m")
            }
            #expect(RunningHandler.current?.channel == "outer" && RunningHandler.current?.method == nil)
        }
        #expect(RunningHandler.current == nil)
    }
}

private final class RecordingStreamHandler: NSObject, FlutterStreamHandler, Sendable {
    let seen: Collector<String>

    init(_ seen: Collector<String>) {
        self.seen = seen
    }

    func onListen(withArguments arguments: Any?, eventSink events: @escaping FlutterEventSink) -> FlutterError? {
        let running = RunningHandler.current
        seen.append(running.map { "\($0.channel) \($0.method ?? "-")" } ?? "nothing")
        return nil
    }

    func onCancel(withArguments arguments: Any?) -> FlutterError? { nil }
}

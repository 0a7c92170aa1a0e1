import ChannelBridgeChannels
import ChannelBridgeCodec
import ChannelBridgeTestSupport
import Flutter
import Foundation
import Testing

/// A `FlutterStreamHandler` on the engine, listened to with ChannelBridge's `EventChannel`.
@Suite struct FlutterEventChannelTests {
    init() { LogCapture.start() }

    /// Records its calls; `onListen` runs `script` with the sink.
    final class Recorder: NSObject, FlutterStreamHandler, @unchecked Sendable {
        // @unchecked: called on the engine's platform executor only; `sinks` is a locked box.
        let calls = Inbox<String>()
        let sinks = Box<[SinkHandoff]>([])
        let script: @Sendable (SinkHandoff) -> Void
        let refuse: FlutterError?

        init(refuse: FlutterError? = nil, script: @escaping @Sendable (SinkHandoff) -> Void = { _ in }) {
            self.refuse = refuse
            self.script = script
        }

        func onListen(withArguments arguments: Any?, eventSink events: @escaping FlutterEventSink) -> FlutterError? {
            calls.put("listen \(arguments ?? "nil")")
            if let refuse { return refuse }
            let sink = SinkHandoff(events)
            sinks.value.append(sink)
            script(sink)
            return nil
        }

        func onCancel(withArguments arguments: Any?) -> FlutterError? {
            calls.put("cancel \(arguments ?? "nil")")
            return nil
        }
    }

    @Test func eventsAnErrorEventAndTheEndOfTheStream() async throws {
        let session = EngineSession()
        defer { session.close() }
        let name = uniqueChannel("events")
        let handler = Recorder { sink in
            // From another thread, as plugins do.
            Thread.detachNewThread {
                sink.events(Int32(1))
                sink.events("two")
                sink.events(FlutterError(code: "HICCUP", message: "a bad one", details: ["n": Int32(3)]))
                sink.events([1.5])
                sink.events(FlutterEndOfEventStream)
                sink.events("after the end")
            }
        }
        FlutterEventChannel(name: name, binaryMessenger: session.engine).setStreamHandler(handler)
        try await withHangGuard {
            var received: [EventChannel.Event] = []
            for try await event in EventChannel(name: name, messenger: session.client).receiveBroadcastStream(
                arguments: "go")
            {
                received.append(event)
            }
            #expect(
                received == [
                    .success(.int32(1)), .success("two"),
                    .error(MethodError(code: "HICCUP", message: "a bad one", details: ["n": .int32(3)])),
                    .success([.float64(1.5)]),
                ])
            #expect(await handler.calls.next() == "listen go")
            // The listener cancels after the end of the stream, as Dart's does.
            #expect(await handler.calls.next() == "cancel go")
        }
    }

    @Test func aRefusedListenIsTheListenersError() async throws {
        let session = EngineSession()
        defer { session.close() }
        let name = uniqueChannel("refused")
        FlutterEventChannel(name: name, binaryMessenger: session.engine)
            .setStreamHandler(Recorder(refuse: FlutterError(code: "NO_SENSOR", message: "none here", details: nil)))
        try await withHangGuard {
            await #expect(throws: MethodError(code: "NO_SENSOR", message: "none here")) {
                for try await _ in EventChannel(name: name, messenger: session.client).receiveBroadcastStream() {}
            }
        }
    }

    @Test func aSecondListenCancelsTheFirstStreamAndItsSinkGoesQuiet() async throws {
        let session = EngineSession()
        defer { session.close() }
        let name = uniqueChannel("relisten")
        let handler = Recorder()
        FlutterEventChannel(name: name, binaryMessenger: session.engine).setStreamHandler(handler)
        let channel = EventChannel(name: name, messenger: session.client)
        try await withHangGuard {
            let first = channel.receiveBroadcastStream(arguments: "a")
            #expect(await handler.calls.next() == "listen a")
            var second = channel.receiveBroadcastStream(arguments: "b").makeAsyncIterator()
            #expect(await handler.calls.next() == "cancel nil")
            #expect(await handler.calls.next() == "listen b")
            let sinks = handler.sinks.value
            sinks[0].events("stale")
            sinks[1].events("fresh")
            #expect(try await second.next() == .success("fresh"))
            for try await _ in first {}
        }
    }

    @Test func cancelWithoutAStreamIsAnErrorAndOtherMethodsAreNotImplemented() async throws {
        let session = EngineSession()
        defer { session.close() }
        let name = uniqueChannel("no-stream")
        FlutterEventChannel(name: name, binaryMessenger: session.engine).setStreamHandler(Recorder())
        try await withHangGuard {
            let methods = MethodChannel(name: name, messenger: session.client)
            await #expect(throws: MethodError(code: "error", message: "No active stream to cancel")) {
                try await methods.invokeMethod("cancel")
            }
            await #expect(throws: ChannelError.self) { try await methods.invokeMethod("pause") }
        }
    }

    @Test func theActiveStreamIsCancelledWhenTheSessionEnds() async throws {
        let session = EngineSession()
        let name = uniqueChannel("teardown")
        let handler = Recorder()
        FlutterEventChannel(name: name, binaryMessenger: session.engine).setStreamHandler(handler)
        try await withHangGuard {
            let stream = EventChannel(name: name, messenger: session.client).receiveBroadcastStream()
            #expect(await handler.calls.next() == "listen nil")
            session.close()
            #expect(await handler.calls.next() == "cancel nil")
            await #expect(throws: (any Error).self) { for try await _ in stream {} }
            #expect(session.engine.isDestroyed)
        }
    }
}

/// A sink handed to another thread, as plugin code does.
struct SinkHandoff: @unchecked Sendable {
    // @unchecked: a FlutterEventSink may be called from any thread.
    let events: FlutterEventSink
    init(_ events: @escaping FlutterEventSink) { self.events = events }
}

import ChannelBridgeTestSupport
import Flutter
import Foundation
import Testing

/// The `Flutter` module's channels install their handlers in the messenger's one handler shape,
/// as the package's own channels do, answering later (on the platform executor or a task queue):
/// over a package messenger (a probe that records what it is asked) none falls back to the public
/// plain handler, and a task queue does not change the shape.
@Suite struct FlutterChannelPathTests {
    final class Quiet: NSObject, FlutterStreamHandler, Sendable {
        func onListen(withArguments arguments: Any?, eventSink events: @escaping FlutterEventSink) -> FlutterError? {
            nil
        }

        func onCancel(withArguments arguments: Any?) -> FlutterError? { nil }
    }

    @Test func everyChannelKindInstallsTheOneHandlerShape() async {
        let probe = FastPathProbe()
        let engine = FlutterEngine(messenger: probe)
        FlutterMethodChannel(name: "method", binaryMessenger: engine).setMethodCallHandler { _, result in result(nil) }
        FlutterBasicMessageChannel(name: "basic", binaryMessenger: engine).setMessageHandler { _, reply in reply(nil) }
        FlutterEventChannel(name: "events", binaryMessenger: engine).setStreamHandler(Quiet())
        engine.setMessageHandlerOnChannel("binary", binaryMessageHandler: { _, reply in reply(nil) })
        let queue = engine.makeBackgroundTaskQueue?()
        engine.setMessageHandlerOnChannel("queued", binaryMessageHandler: { _, reply in reply(nil) }, taskQueue: queue)
        #expect(
            probe.calls == [
                "setMessageHandler method later", "setMessageHandler basic later", "setMessageHandler events later",
                "setMessageHandler binary later", "setMessageHandler queued later",
            ])
        await engine.tearDown()
        probe.forgetHandlers()
    }
}

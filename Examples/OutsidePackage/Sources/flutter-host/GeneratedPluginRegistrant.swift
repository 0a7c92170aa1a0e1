import Flutter

/// In the form of Flutter's generated registrant.
final class GeneratedPluginRegistrant: NSObject {
    static func register(with registry: any FlutterPluginRegistry) {
        ClockPlugin.register(with: registry.registrar(forPlugin: "ClockPlugin")!)
    }
}

/// Answers `now` with the time, and `later` a second after, from a dispatch queue.
final class ClockPlugin: NSObject, FlutterPlugin {
    static func register(with registrar: any FlutterPluginRegistrar) {
        let channel = FlutterMethodChannel(name: "example/clock", binaryMessenger: registrar.messenger())
        registrar.addMethodCallDelegate(ClockPlugin(), channel: channel)
    }

    func handle(_ call: FlutterMethodCall, result: @escaping FlutterResult) {
        switch call.method {
        case "now":
            result(ISO8601DateFormatter().string(from: Date()))
        case "later":
            let answer = Answer(result)
            DispatchQueue.global().asyncAfter(deadline: .now() + 1) {
                answer.send(ISO8601DateFormatter().string(from: Date()))
            }
        default:
            result(FlutterMethodNotImplemented)
        }
    }
}

/// A `FlutterResult` handed to the queue that answers; only that queue calls it.
private final class Answer: @unchecked Sendable {
    private let result: FlutterResult

    init(_ result: @escaping FlutterResult) {
        self.result = result
    }

    func send(_ value: Any?) {
        result(value)
    }
}

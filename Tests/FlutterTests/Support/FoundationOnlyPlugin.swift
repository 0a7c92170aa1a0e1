import Flutter

// This file imports Flutter and nothing else, as an iOS plugin file does: `NSObject`, `Data`,
// `Date`, `Timer`, `RunLoop`, `Thread` and `DispatchQueue` are in scope because `import Flutter`
// brings Foundation, under the package's strict settings (`MemberImportVisibility`,
// `InternalImportsByDefault`). `FoundationOnlyPluginTests` calls it.

/// A plugin that uses Foundation through `import Flutter` only.
final class FoundationOnlyPlugin: NSObject, FlutterPlugin {
    static let channelName = "test/foundation-only"

    static func register(with registrar: any FlutterPluginRegistrar) {
        let channel = FlutterMethodChannel(name: channelName, binaryMessenger: registrar.messenger())
        registrar.addMethodCallDelegate(FoundationOnlyPlugin(), channel: channel)
    }

    func handle(_ call: FlutterMethodCall, result: @escaping FlutterResult) {
        switch call.method {
        case "bytes":
            let text = call.arguments as? String ?? ""
            result(FlutterStandardTypedData(bytes: Data(text.utf8)))
        case "timer":
            // A timer on a thread of its own, whose run loop runs until the timer has fired; the
            // answer goes through a dispatch queue.
            let answer = Answer(result)
            let thread = Thread {
                let timer = Timer(timeInterval: 0.001, repeats: false) { _ in
                    DispatchQueue.global().async { answer.send("fired") }
                }
                RunLoop.current.add(timer, forMode: .default)
                _ = RunLoop.current.run(mode: .default, before: Date(timeIntervalSinceNow: 60))
            }
            thread.start()
        default:
            result(FlutterMethodNotImplemented)
        }
    }
}

/// A `FlutterResult` sent to the thread that answers; only that thread calls it.
private final class Answer: @unchecked Sendable {
    private let result: FlutterResult

    init(_ result: @escaping FlutterResult) {
        self.result = result
    }

    func send(_ value: Any?) {
        result(value)
    }
}

public import Flutter
public import Foundation

/// A plugin written the way iOS plugins are: notes kept per engine (per session), a method
/// channel with a delegate, an event channel of added notes, a result answered later from
/// another thread.
///
/// | method | arguments | result |
/// |---|---|---|
/// | `add` | `{"text": String}` | the number of notes (int64) |
/// | `all` | — | the notes |
/// | `shout` | `{"text": String}` | the text in capitals, answered from a background queue |
/// | other | | not implemented |
public final class NotesPlugin: NSObject, FlutterPlugin, FlutterStreamHandler {
    private var notes: [String] = []
    private var changes: FlutterEventSink?

    public static func register(with registrar: any FlutterPluginRegistrar) {
        let channel = FlutterMethodChannel(name: "example/notes", binaryMessenger: registrar.messenger())
        let instance = NotesPlugin()
        registrar.addMethodCallDelegate(instance, channel: channel)
        FlutterEventChannel(name: "example/notes/changes", binaryMessenger: registrar.messenger())
            .setStreamHandler(instance)
        registrar.publish(instance)
    }

    public func handle(_ call: FlutterMethodCall, result: @escaping FlutterResult) {
        switch call.method {
        case "add":
            guard let text = (call.arguments as? [String: Any])?["text"] as? String else {
                result(FlutterError(code: "BAD_ARGS", message: "add needs {\"text\": String}", details: nil))
                return
            }
            notes.append(text)
            changes?(text)
            result(notes.count)
        case "all":
            result(notes)
        case "shout":
            let text = (call.arguments as? [String: Any])?["text"] as? String ?? ""
            // A FlutterResult may be called from any thread, once (it is not Sendable, as on iOS).
            nonisolated(unsafe) let reply = result
            DispatchQueue.global().async {
                reply(text.uppercased())
            }
        default:
            result(FlutterMethodNotImplemented)
        }
    }

    public func onListen(withArguments arguments: Any?, eventSink events: @escaping FlutterEventSink) -> FlutterError? {
        changes = events
        return nil
    }

    public func onCancel(withArguments arguments: Any?) -> FlutterError? {
        changes = nil
        return nil
    }
}

/// Flutter's plugin template, registered by name: `getPlatformVersion` answers "Linux " and the
/// kernel's version (iOS answers "iOS " and the system version).
public final class PlatformVersionPlugin: NSObject, FlutterPlugin {
    public static func register(with registrar: any FlutterPluginRegistrar) {
        let channel = FlutterMethodChannel(name: "platform_version", binaryMessenger: registrar.messenger())
        registrar.addMethodCallDelegate(PlatformVersionPlugin(), channel: channel)
    }

    public func handle(_ call: FlutterMethodCall, result: @escaping FlutterResult) {
        switch call.method {
        case "getPlatformVersion":
            result("Linux " + ProcessInfo.processInfo.operatingSystemVersionString)
        default:
            result(FlutterMethodNotImplemented)
        }
    }
}

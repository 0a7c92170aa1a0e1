import Flutter
import Foundation

/// A plugin written as for iOS that traps on request, for the isolation tests.
///
/// | method | arguments | result |
/// |---|---|---|
/// | `pid` | — | the pid of the process serving the session (int) |
/// | `echo` | any | the arguments |
/// | `abort` | anything but an int | never: `as! Int` fails and the process ends by SIGABRT |
/// | `hang` | nothing, or the path of a FIFO | never: the handler writes `hanging` to the FIFO, then blocks the main thread for ever |
final class CrashPlugin: NSObject, FlutterPlugin {
    static func register(with registrar: any FlutterPluginRegistrar) {
        let channel = FlutterMethodChannel(name: "test/crash", binaryMessenger: registrar.messenger())
        registrar.addMethodCallDelegate(CrashPlugin(), channel: channel)
    }

    func handle(_ call: FlutterMethodCall, result: @escaping FlutterResult) {
        switch call.method {
        case "pid":
            result(Int(ProcessInfo.processInfo.processIdentifier))
        case "echo":
            result(call.arguments)
        case "abort":
            // What Pigeon's generated code does with a message of the wrong shape.
            let number = call.arguments as! Int
            result(number)
        case "hang":
            // The FIFO tells a test that the handler is running, not merely received.
            if let path = call.arguments as? String, let fifo = FileHandle(forWritingAtPath: path) {
                fifo.write(Data("hanging".utf8))
                try? fifo.close()
            }
            while true { sleep(3600) }
        default:
            result(FlutterMethodNotImplemented)
        }
    }
}

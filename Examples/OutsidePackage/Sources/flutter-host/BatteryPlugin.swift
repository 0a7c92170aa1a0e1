import Flutter

/// A plugin as iOS plugin files are written: `import Flutter` alone brings Foundation.
final class BatteryPlugin: NSObject, FlutterPlugin {
    static func register(with registrar: any FlutterPluginRegistrar) {
        let channel = FlutterMethodChannel(name: "example/battery", binaryMessenger: registrar.messenger())
        registrar.addMethodCallDelegate(BatteryPlugin(), channel: channel)
    }

    func handle(_ call: FlutterMethodCall, result: @escaping FlutterResult) {
        switch call.method {
        case "getBatteryLevel":
            let capacity = try? String(contentsOfFile: "/sys/class/power_supply/BAT0/capacity", encoding: .utf8)
            if let level = capacity.flatMap({ Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) }) {
                result(level)
            } else {
                result(FlutterError(code: "UNAVAILABLE", message: "Battery level not available.", details: nil))
            }
        default:
            result(FlutterMethodNotImplemented)
        }
    }
}

// A plugin's own Swift file in the shape of flutter/packages' darwin plugins (an import block for
// iOS and macOS with no #error branch; iOS-only code under `#if os(iOS)`), as
// `channelbridge pigeon adapt` leaves it: `PigeonCommandTests` adapts the iOS form of this file
// and expects exactly this text, and `UserDefaultsTests` runs it.

#if os(iOS) || os(Linux)
import Flutter
#elseif os(macOS)
import FlutterMacOS
#endif

let suiteCounterError = "Suite Error"

/// Counts how often it is asked, per `UserDefaults` suite.
final class SuiteCounterPlugin: NSObject, FlutterPlugin {
    static let channelName = "test/suite-counter"

    static func register(with registrar: any FlutterPluginRegistrar) {
        let plugin = SuiteCounterPlugin()
        #if os(iOS) || os(Linux)
        let messenger = registrar.messenger()
        #else
        let messenger = registrar.messenger
        #endif
        let channel = FlutterBasicMessageChannel(
            name: channelName, binaryMessenger: messenger, codec: FlutterStandardMessageCodec.sharedInstance())
        channel.setMessageHandler { message, reply in
            reply(plugin.increment(suiteName: message as? String))
        }
    }

    /// `[count]`, or `[code, message]` for a suite iOS refuses.
    func increment(suiteName: String?) -> [Any] {
        #if os(iOS) || os(Linux)
        if !(suiteName?.starts(with: "group.") ?? true) {
            return [suiteCounterError, "'\(suiteName!)' is not an app group"]
        }
        #endif
        guard let defaults = UserDefaults(suiteName: suiteName) else {
            return [suiteCounterError, "no suite '\(suiteName ?? "standard")'"]
        }
        let count = defaults.integer(forKey: "count") + 1
        defaults.set(count, forKey: "count")
        #if os(macOS)
        defaults.synchronize()
        #endif
        return [count]
    }
}

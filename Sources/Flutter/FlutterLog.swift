import ChannelBridgePlatform
import Foundation

/// Where the `Flutter` module's warnings go: the misuses Flutter logs on iOS (a result sent
/// twice, an unsupported value, a corrupted message) and the ones only a socket has (a
/// connection that ended before a reply). Standard error by default.
///
/// ```swift
/// FlutterLog.setHandler { level, message in logger.log("\(level): \(message)") }
/// ```
public enum FlutterLog {
    public enum Level: String, Sendable {
        case warning, error
    }

    public typealias Handler = @Sendable (Level, String) -> Void

    private static let handler = LockedValue<Handler?>(nil)

    /// Replaces the handler; `nil` restores standard error.
    public static func setHandler(_ newHandler: Handler?) {
        handler.withLock { $0 = newHandler }
    }

    static func warning(_ message: @autoclosure () -> String) {
        log(.warning, message())
    }

    static func error(_ message: @autoclosure () -> String) {
        log(.error, message())
    }

    private static func log(_ level: Level, _ message: String) {
        if let current = handler.withLock({ $0 }) {
            current(level, message)
        } else {
            StandardStream.error.writeLine("Flutter \(level.rawValue): \(message)")
        }
    }
}

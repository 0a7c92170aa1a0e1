import ChannelBridgeMessenger
import ChannelBridgePlatform
import ChannelBridgePlugins
import ChannelBridgeTesting
import Flutter
import Foundation

/// A `FlutterEngine` on the host side of an in-memory session, and the client that drives it
/// with ChannelBridge's own channels (the Dart side's bytes).
struct EngineSession {
    let client: MessengerConnection
    let host: MessengerConnection
    let registry: PluginRegistry
    let engine: FlutterEngine

    init(options: FlutterEngine.Options = FlutterEngine.Options()) {
        (client, host) = InMemoryMessenger.makePair()
        registry = PluginRegistry(messenger: host)
        engine = FlutterEngine(registry: registry, options: options)
    }

    func close() {
        client.close()
    }
}

/// The module's log, captured once for every test; each test reads what mentions its own
/// channel names, so parallel tests do not see each other's lines.
enum LogCapture {
    private static let lines = LockedValue<[String]>([])
    /// What a test runs when a line mentions its text, on the logging thread, after recording it.
    private static let reactions = LockedValue<[String: @Sendable () -> Void]>([:])
    private static let installed: Void = {
        FlutterLog.setHandler { level, message in
            lines.withLock { $0.append("\(level.rawValue): \(message)") }
            let matching = reactions.withLock { $0.filter { message.contains($0.key) }.map(\.value) }
            for reaction in matching { reaction() }
        }
    }()

    /// Runs `reaction` inside the log handler for every line that mentions `text`.
    static func onLine(mentioning text: String, _ reaction: @escaping @Sendable () -> Void) {
        reactions.withLock { $0[text] = reaction }
    }

    static func start() {
        _ = installed
    }

    static func lines(mentioning text: String) -> [String] {
        lines.withLock { $0.filter { $0.contains(text) } }
    }
}

/// A unique channel name per test.
func uniqueChannel(_ base: String) -> String {
    "test/\(base)/\(UUID().uuidString.prefix(8))"
}

/// A value handed between threads in a test.
final class Box<Value>: @unchecked Sendable {
    // @unchecked: every access is under `lock`.
    private let lock = NSLock()
    private var stored: Value

    init(_ value: Value) { stored = value }

    var value: Value {
        get { lock.withLock { stored } }
        set { lock.withLock { stored = newValue } }
    }
}

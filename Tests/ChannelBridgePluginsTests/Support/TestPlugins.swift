import ChannelBridgeChannels
import ChannelBridgeCodec
import ChannelBridgePlatform
import ChannelBridgePlugins
import ChannelBridgeTestSupport

/// Where the test plugins report what happened to them: handed to them through the environment,
/// since `register(with:)` gets nothing else.
final class Probe: Sendable {
    private let log = LockedValue<[String]>([])
    let streamCalls = Inbox<String>()

    func record(_ entry: String) {
        log.withLock { $0.append(entry) }
    }

    var entries: [String] {
        log.withLock { $0 }
    }
}

enum ProbeKey: PluginEnvironmentKey {
    static let defaultValue: Probe? = nil
}

extension PluginEnvironment {
    var probe: Probe? {
        get { self[ProbeKey.self] }
        set { self[ProbeKey.self] = newValue }
    }
}

struct Refusal: Error, CustomStringConvertible {
    var description: String { "refused on purpose" }
}

struct Boom: Error, CustomStringConvertible {
    var description: String { "boom" }
}

/// Answers `echo` with its arguments, `fail` with an error envelope, `boom` by throwing a plain
/// error, and nothing else.
struct EchoDelegate: MethodCallDelegate {
    func handle(_ call: MethodCall) async throws -> StandardValue {
        switch call.method {
        case "echo": return call.arguments
        case "fail": throw MethodError(code: "FAILED", message: "asked to fail", details: call.arguments)
        case "boom": throw Boom()
        default: throw MethodNotImplemented()
        }
    }
}

enum AlphaPlugin: Plugin {
    static let channelName = "test/alpha"

    static func register(with registrar: PluginRegistrar) throws {
        let probe = registrar.environment.probe
        probe?.record("Alpha.register as \(registrar.key)")
        registrar.addMethodCallDelegate(
            EchoDelegate(), channel: MethodChannel(name: channelName, messenger: registrar.messenger))
        registrar.addTeardownHook { probe?.record("Alpha.teardown.1") }
        registrar.addTeardownHook { probe?.record("Alpha.teardown.2") }
    }
}

enum BetaPlugin: Plugin {
    static func register(with registrar: PluginRegistrar) throws {
        let probe = registrar.environment.probe
        probe?.record("Beta.register as \(registrar.key)")
        registrar.publish("published by Beta")
        registrar.addTeardownHook { probe?.record("Beta.teardown") }
    }
}

/// Installs a handler and a hook, then fails.
enum FailingPlugin: Plugin {
    static let channelName = "test/failing"

    static func register(with registrar: PluginRegistrar) throws {
        let probe = registrar.environment.probe
        registrar.addMethodCallDelegate(
            EchoDelegate(), channel: MethodChannel(name: channelName, messenger: registrar.messenger))
        registrar.addTeardownHook { probe?.record("Failing.teardown") }
        throw Refusal()
    }
}

enum RenamedPlugin: Plugin {
    static let pluginKey = "io.example.renamed"

    static func register(with registrar: PluginRegistrar) throws {
        registrar.environment.probe?.record("Renamed.register as \(registrar.key)")
    }
}

/// Owns `test/ticks`: sends its listen arguments as one event; reports listen and cancel.
enum TickerPlugin: Plugin {
    static let channelName = "test/ticks"

    struct Handler: StreamHandler {
        let probe: Probe?

        func onListen(arguments: StandardValue, events: EventSink) async throws {
            probe?.streamCalls.put("listen \(arguments)")
            events.success(arguments)
        }

        func onCancel(arguments: StandardValue) async throws {
            probe?.streamCalls.put("cancel \(arguments)")
        }
    }

    static func register(with registrar: PluginRegistrar) throws {
        registrar.addStreamHandler(
            Handler(probe: registrar.environment.probe),
            channel: EventChannel(name: channelName, messenger: registrar.messenger))
    }
}

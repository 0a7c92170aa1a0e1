// A plugin of your own: one MethodChannel, registered by name the way Flutter's generated
// registrant registers plugins. Its tests are in Examples/GreeterPluginTests.

import ChannelBridgeChannels
import ChannelBridgeCodec
import ChannelBridgePlugins
import Synchronization

/// Greets by name on `example/greeter`: `greet {name}` answers "Hello, NAME!", and counts the
/// greetings of its session in `greetings`.
public enum GreeterPlugin: Plugin {
    public static let pluginKey = "GreeterPlugin"
    public static let channelName = "example/greeter"

    public static func register(with registrar: PluginRegistrar) throws {
        let channel = MethodChannel(name: channelName, messenger: registrar.messenger)
        registrar.addMethodCallDelegate(Greeter(), channel: channel)
        registrar.publish("greets on \(channelName)")
    }
}

struct Greeter: MethodCallDelegate {
    private let count = Counter()

    func handle(_ call: MethodCall) async throws -> StandardValue {
        switch call.method {
        case "greet":
            guard let name = call.arguments["name"]?.stringValue, !name.isEmpty else {
                throw MethodError(code: "INVALID_ARGUMENTS", message: "greet needs a non-empty string 'name'",
                                  details: call.arguments)
            }
            count.increment()
            return .string("Hello, \(name)!")
        case "greetings":
            return .int(count.value)
        default:
            // Flutter's "not implemented": the caller gets a null reply.
            throw MethodNotImplemented()
        }
    }
}

/// The session's greeting count, shared by the delegate's calls.
final class Counter: Sendable {
    private let state = Mutex(0)
    var value: Int { state.withLock { $0 } }
    func increment() { state.withLock { $0 += 1 } }
}

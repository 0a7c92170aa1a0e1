// A plugin of your own: one MethodChannel whose methods are typed Swift functions, registered by
// name the way Flutter's generated registrant registers plugins. Its tests are in
// Examples/GreeterPluginTests.

public import ChannelBridge
import Synchronization

/// The arguments of `greet`, as the caller sends them: `{"name": "Ada"}` from Dart, or this
/// struct from Swift with `invokeMethod("greet", arguments: Greeting(name: "Ada"), as: String.self)`.
public struct Greeting: Codable, Sendable {
    public var name: String

    public init(name: String) {
        self.name = name
    }
}

/// Greets by name on `example/greeter`: `greet {name}` answers "Hello, NAME!", and `greetings`
/// the number of greetings of its session.
public enum GreeterPlugin: Plugin {
    public static let pluginKey = "GreeterPlugin"
    public static let channelName = "example/greeter"

    public static func register(with registrar: PluginRegistrar) throws {
        // One greeter per registry, so per session: its count is the session's.
        let greeter = Greeter()
        // Each method is a function; a method not listed answers "not implemented", and arguments
        // that are not a Greeting answer INVALID_ARGUMENTS naming the field, before `greet` runs.
        let router = MethodRouter { router in
            router.on("greet", greeter.greet)
            router.on("greetings", greeter.greetings)
        }
        registrar.addMethodCallDelegate(
            router, channel: MethodChannel(name: channelName, messenger: registrar.messenger))
        // For `channelbridge list`: the router's method names are listed anyway; this adds a line each.
        registrar.describe(
            ChannelDescription(
                name: channelName, kind: .method, codec: "standard",
                methods: [
                    MethodDescription(name: "greet", summary: #"{"name": String} -> "Hello, NAME!""#),
                    MethodDescription(name: "greetings", summary: "-> int: the session's greetings so far"),
                ], summary: "Greets by name"))
        registrar.publish("greets on \(channelName)")
    }
}

final class Greeter: Sendable {
    // A counter is all the state there is, so an atomic: nothing to keep consistent with anything
    // else, no lock to hold (ThreadSanitizer understands atomics). State with more than one field
    // would go in an actor, with the routes calling it with `await`.
    private let count = Atomic<Int>(0)

    func greet(_ greeting: Greeting) throws -> String {
        guard !greeting.name.isEmpty else {
            throw MethodError(code: "INVALID_ARGUMENTS", message: "greet needs a non-empty name")
        }
        count.wrappingAdd(1, ordering: .relaxed)
        return "Hello, \(greeting.name)!"
    }

    func greetings() -> Int {
        count.load(ordering: .relaxed)
    }
}

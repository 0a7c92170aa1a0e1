import ChannelBridgeChannels
public import ChannelBridgeCodec

/// A plugin: code that puts channels on a messenger when a `PluginRegistry` registers it (Flutter's
/// `FlutterPlugin`).
///
/// `register(with:)` is static because a registry registers a plugin *type* by name; the plugin
/// creates its own instances there, one per registry (per session), so per-session state lives in
/// them. Everything a plugin needs comes through the registrar: the messenger, the environment the
/// host set up, and the places to hang handlers and teardown hooks.
///
/// ```swift
/// struct GreeterPlugin: Plugin, MethodCallDelegate {
///     static func register(with registrar: PluginRegistrar) throws {
///         let channel = MethodChannel(name: "example/greeter", messenger: registrar.messenger)
///         registrar.addMethodCallDelegate(GreeterPlugin(), channel: channel)
///     }
///
///     func handle(_ call: MethodCall) async throws -> StandardValue {
///         switch call.method {
///         case "greet": return .string("Hello, \(call.arguments["name"]?.stringValue ?? "you")!")
///         default: throw MethodNotImplemented()   // the caller gets a null reply
///         }
///     }
/// }
///
/// let registry = PluginRegistry(messenger: connection)
/// try await registry.register(GreeterPlugin.self)   // under its key, "GreeterPlugin"
/// ```
public protocol Plugin: Sendable {
    /// The key a catalogue files this plugin under when none is given; Flutter's generated
    /// registrant uses the class name, and so does the default.
    static var pluginKey: String { get }

    /// Installs the plugin's channels through `registrar`. Throwing makes the registration fail:
    /// the registry then removes whatever this plugin installed and runs its teardown hooks.
    static func register(with registrar: PluginRegistrar) throws
}

extension Plugin {
    public static var pluginKey: String { String(describing: self) }
}

/// Answers the method calls of one channel for a plugin (the `handleMethodCall:result:` of
/// Flutter's `FlutterPlugin`), installed with `PluginRegistrar.addMethodCallDelegate(_:channel:)`.
///
/// Return the result, throw `MethodError` for an error envelope, throw `MethodNotImplemented` for
/// a method the plugin does not know (a null reply, which the caller sees as "not implemented"), or
/// throw anything else for an error envelope with code `"error"`.
public protocol MethodCallDelegate: Sendable {
    func handle(_ call: MethodCall) async throws -> StandardValue
}

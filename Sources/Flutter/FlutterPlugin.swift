public import Foundation

/// Called with the result of a method call: the value, a `FlutterError`, or
/// `FlutterMethodNotImplemented` (Flutter's `FlutterResult`). The one a handler gets may be called
/// later, from any thread, once.
public typealias FlutterResult = (_ result: Any?) -> Void

/// Handles a method call and answers through `result` (Flutter's `FlutterMethodCallHandler`).
public typealias FlutterMethodCallHandler = (_ call: FlutterMethodCall, _ result: @escaping FlutterResult) -> Void

/// Called with the decoded reply to a message, or given to a handler to answer one (Flutter's
/// `FlutterReply`).
public typealias FlutterReply = (_ reply: Any?) -> Void

/// Handles a decoded message and answers through `callback` (Flutter's `FlutterMessageHandler`).
public typealias FlutterMessageHandler = (_ message: Any?, _ callback: @escaping FlutterReply) -> Void

/// The iOS side of a Flutter plugin (Flutter's `FlutterPlugin`).
///
/// ```swift
/// public final class BatteryPlugin: NSObject, FlutterPlugin {
///     public static func register(with registrar: FlutterPluginRegistrar) {
///         let channel = FlutterMethodChannel(name: "example/battery", binaryMessenger: registrar.messenger())
///         registrar.addMethodCallDelegate(BatteryPlugin(), channel: channel)
///     }
///
///     public func handle(_ call: FlutterMethodCall, result: @escaping FlutterResult) {
///         result(call.method == "level" ? 87 : FlutterMethodNotImplemented)
///     }
/// }
/// ```
///
/// On iOS `handle(_:result:)` and `detachFromEngine(for:)` are optional Objective-C requirements;
/// Linux has no Objective-C runtime, so here they are requirements with default implementations:
/// the default `handle` answers `FlutterMethodNotImplemented` (and logs that the delegate has no
/// handler) where iOS would crash on the missing selector, and the default `detachFromEngine`
/// does nothing. The `UIApplicationDelegate` callbacks of `FlutterApplicationLifeCycleDelegate`
/// and `setPluginRegistrantCallback` have no counterpart.
public protocol FlutterPlugin: NSObjectProtocol {
    /// Sets the plugin up through `registrar`: its channels, delegates and published value.
    static func register(with registrar: any FlutterPluginRegistrar)

    /// Answers a call on a channel the plugin was added to with
    /// `FlutterPluginRegistrar.addMethodCallDelegate(_:channel:)`.
    func handle(_ call: FlutterMethodCall, result: @escaping FlutterResult)

    /// Called on the platform executor when the engine is torn down, if the plugin published
    /// itself with `FlutterPluginRegistrar.publish(_:)`.
    func detachFromEngine(for registrar: any FlutterPluginRegistrar)
}

extension FlutterPlugin {
    public func handle(_ call: FlutterMethodCall, result: @escaping FlutterResult) {
        FlutterLog.error(
            "\(type(of: self)) is a method call delegate but does not implement handle(_:result:); "
                + "'\(call.method)' is answered as not implemented")
        result(FlutterMethodNotImplemented)
    }

    public func detachFromEngine(for registrar: any FlutterPluginRegistrar) {}
}

/// What a registrar shares with an application's registrar (Flutter's `FlutterBaseRegistrar`):
/// the messenger. Textures and platform views have no counterpart here.
public protocol FlutterBaseRegistrar: NSObjectProtocol {
    /// The messenger for the plugin's channels: its engine.
    func messenger() -> any FlutterBinaryMessenger
}

/// What a plugin registers itself with: one per plugin key in a registry (Flutter's
/// `FlutterPluginRegistrar`). `viewController`, `textures()`, platform-view factories, asset
/// lookup and scene delegates have no counterpart here.
public protocol FlutterPluginRegistrar: FlutterBaseRegistrar {
    /// Publishes `value` under the plugin's key; the registry's `valuePublished(byPlugin:)`
    /// returns it. A later call replaces it.
    func publish(_ value: NSObject)

    /// Routes the calls arriving on `channel` to `delegate.handle(_:result:)`.
    func addMethodCallDelegate(_ delegate: any FlutterPlugin, channel: FlutterMethodChannel)

    /// Does nothing: a host process has no `UIApplicationDelegate` callbacks to deliver.
    func addApplicationDelegate(_ delegate: any FlutterPlugin)
}

/// Plugins by key (Flutter's `FlutterPluginRegistry`), implemented by `FlutterEngine`.
///
/// ```swift
/// // A generated registrant, unchanged:
/// SharedPreferenceAppGroupPlugin.register(with: registry.registrar(forPlugin: "SharedPreferenceAppGroupPlugin")!)
/// ```
public protocol FlutterPluginRegistry: NSObjectProtocol {
    /// A registrar for the plugin `pluginKey`, which is registered from then on; `nil` (with a
    /// logged error) when the key is already registered, where iOS asserts.
    func registrar(forPlugin pluginKey: String) -> (any FlutterPluginRegistrar)?
    /// Whether `registrar(forPlugin:)` has been called with `pluginKey`.
    func hasPlugin(_ pluginKey: String) -> Bool
    /// What the plugin published: `NSNull` when it published nothing, `nil` when no plugin is
    /// registered under `pluginKey`.
    func valuePublished(byPlugin pluginKey: String) -> NSObject?
}

/// Registers a set of plugins with a registry (Flutter's `FlutterPluginRegistrant`); generated
/// registrants usually have a class method `register(with:)` of the same shape instead.
public protocol FlutterPluginRegistrant: NSObjectProtocol {
    func register(with registry: any FlutterPluginRegistry)
}

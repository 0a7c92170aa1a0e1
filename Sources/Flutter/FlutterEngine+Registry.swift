import ChannelBridgePlatform
public import ChannelBridgePlugins
public import Foundation

/// What a Flutter plugin published, as the native registry holds it: native code reads
/// `registry.valuePublished(byPlugin: key)?.value(as: FlutterPublishedObject.self)?.object`.
// @unchecked: immutable (`let`s); the published NSObject is handed over once and, as on iOS, used by plugin code on the platform thread.
public final class FlutterPublishedObject: @unchecked Sendable {
    // @unchecked: immutable; the object is the plugin's, handed over by `publish(_:)` as on iOS.
    public let object: NSObject

    init(_ object: NSObject) {
        self.object = object
    }
}

/// A native plugin's published value, as a Flutter registry returns it.
// @unchecked: immutable: its one stored property is a `let` Sendable value.
public final class FlutterNativePublication: NSObject, @unchecked Sendable {
    // @unchecked: immutable.
    public let value: any Sendable

    init(_ value: any Sendable) {
        self.value = value
        super.init()
    }
}

extension FlutterEngine: FlutterPluginRegistry {
    /// The native registry this engine registers in: the session's (given to `engine(for:)` or
    /// `init(registry:)`), or, for an engine first made for plugins registered by name, one of
    /// its own over the same messenger.
    public var registry: PluginRegistry {
        state.withLock { state in
            if let registry = state.registry { return registry }
            let registry = PluginRegistry(messenger: sessionMessenger)
            state.registry = registry
            return registry
        }
    }

    /// A registrar from the native registry, so a Flutter plugin's key is a key like any other:
    /// `nil`, with Flutter's "Duplicate plugin key" logged, when it is taken (iOS asserts), or
    /// when the registry has been torn down.
    public func registrar(forPlugin pluginKey: String) -> (any FlutterPluginRegistrar)? {
        do {
            return adopt(try registry.registrar(forPlugin: pluginKey))
        } catch let error where error.code == .duplicateKey {
            FlutterLog.error("Duplicate plugin key: \(pluginKey)")
            return nil
        } catch {
            FlutterLog.error("\(error)")
            return nil
        }
    }

    public func hasPlugin(_ pluginKey: String) -> Bool {
        registry.hasPlugin(pluginKey)
    }

    /// `NSNull` for a registered plugin that published nothing, the object a Flutter plugin
    /// published, a native plugin's value wrapped in `FlutterNativePublication`, `nil` for a key
    /// nobody registered.
    public func valuePublished(byPlugin pluginKey: String) -> NSObject? {
        switch registry.valuePublished(byPlugin: pluginKey) {
        case nil: return nil
        case .nothing?: return NSNull()
        case .value(let value)?:
            if let flutter = value as? FlutterPublishedObject { return flutter.object }
            return FlutterNativePublication(value)
        }
    }

    /// The Flutter registrar for a native one of this engine's session; kept for teardown.
    func adopt(_ native: PluginRegistrar) -> FlutterEngineRegistrar {
        let registrar = FlutterEngineRegistrar(native: native, engine: self)
        state.withLock { state in
            state.registrars[native.key] = registrar
            if state.channels == nil { state.channels = native.channels }
        }
        return registrar
    }
}

/// A `FlutterPluginRegistrar` over a native registrar: publications go to the native registry.
// @unchecked: `let`s only; the one mutable piece (`published`) is behind a LockedValue.
final class FlutterEngineRegistrar: NSObject, FlutterPluginRegistrar, @unchecked Sendable {
    // @unchecked: `engine` and `native` are immutable and thread-safe; `published` is behind a lock.
    let native: PluginRegistrar
    /// Strong, as plugins keep using `messenger()`; the engine drops its registrars at teardown.
    private let engine: FlutterEngine
    private let published = LockedValue<Handoff<NSObject>?>(nil)

    init(native: PluginRegistrar, engine: FlutterEngine) {
        self.native = native
        self.engine = engine
        super.init()
    }

    func messenger() -> any FlutterBinaryMessenger {
        engine
    }

    func publish(_ value: NSObject) {
        published.withLock { $0 = Handoff(value) }
        native.publish(FlutterPublishedObject(value))
    }

    func addMethodCallDelegate(_ delegate: any FlutterPlugin, channel: FlutterMethodChannel) {
        channel.setMethodCallHandler { call, result in
            delegate.handle(call, result: result)
        }
    }

    func addApplicationDelegate(_ delegate: any FlutterPlugin) {}

    /// Calls `detachFromEngine(for:)` on what the plugin published, if it is a `FlutterPlugin`
    /// (as iOS does when an engine goes away).
    func detachPublishedPlugin() {
        guard let plugin = published.withLock({ $0?.value }) as? any FlutterPlugin else { return }
        plugin.detachFromEngine(for: self)
    }
}

public import ChannelBridgeChannels
public import ChannelBridgeMessenger

/// The plugins registered on one messenger: one registry per session, as Flutter has one per
/// engine (`FlutterPluginRegistry`).
///
/// Each plugin key gets one registrar; registering a key twice is a `PluginError` with code
/// `duplicateKey` (Flutter asserts; a registry never crashes). `tearDown()` removes every channel
/// handler the plugins installed and runs their teardown hooks, once.
///
/// ```swift
/// var environment = PluginEnvironment()
/// environment.entitledAppGroups = ["group.example"]     // read by the plugins that need it
///
/// let registry = PluginRegistry(messenger: connection, environment: environment)
/// try await registry.register(GreeterPlugin.self)
///
/// // or by hand, as Flutter's generated registrant does:
/// try GreeterPlugin.register(with: registry.registrar(forPlugin: "GreeterPlugin"))
///
/// registry.hasPlugin("GreeterPlugin")                    // true
/// await registry.tearDown()                             // when the session ends
/// ```
public final class PluginRegistry: Sendable {
    public let messenger: any BinaryMessenger
    /// Handed to every registrar.
    public let environment: PluginEnvironment
    /// The channels the plugins set up through their registrars, for reflection; the host adds
    /// its own.
    public let channels = ChannelCatalog()
    private let core: RegistryCore

    public init(messenger: any BinaryMessenger, environment: PluginEnvironment = PluginEnvironment()) {
        self.messenger = messenger
        self.environment = environment
        self.core = RegistryCore(channels: channels)
    }

    /// A registrar for the plugin `key`, which is registered from now on.
    ///
    /// - Throws: `PluginError` `duplicateKey` when `key` is already registered, `registryTornDown`
    ///   after `tearDown()`.
    public func registrar(forPlugin key: String) throws(PluginError) -> PluginRegistrar {
        try core.add(key)
        return PluginRegistrar(key: key, messenger: messenger, environment: environment, channels: channels, core: core)
    }

    /// Registers `plugin` under `key` (default: its `pluginKey`): takes a registrar and calls the
    /// plugin's `register(with:)`.
    ///
    /// - Throws: what `registrar(forPlugin:)` throws, or `registrationFailed` (with the plugin's
    ///   error as `underlying`) when `register(with:)` threw. A failed plugin leaves nothing behind:
    ///   its key is free again, the handlers it installed are removed, the catalog entries it added
    ///   are taken back (reflection lists what was there before) and its hooks have run.
    public func register(_ plugin: any Plugin.Type, forKey key: String? = nil) async throws(PluginError) {
        let key = key ?? plugin.pluginKey
        let registrar = try registrar(forPlugin: key)
        do {
            try plugin.register(with: registrar)
        } catch {
            await core.rollBack(key)
            throw .registrationFailed(key, error)
        }
    }

    /// `register(_:forKey:)` for a caller on a thread that must not wait for a task (the host's
    /// accepting thread): a plugin that fails has its handlers removed before this throws, and its
    /// teardown hooks run afterwards, on a task of their own.
    package func registerWithoutWaiting(_ plugin: any Plugin.Type, forKey key: String? = nil) throws(PluginError) {
        let key = key ?? plugin.pluginKey
        let registrar = try registrar(forPlugin: key)
        do {
            try plugin.register(with: registrar)
        } catch {
            let hooks = core.rollBackNow(key)
            if !hooks.isEmpty { Task { for hook in hooks { await hook() } } }
            throw .registrationFailed(key, error)
        }
    }

    /// Serves `channels` on `channelbridge/reflection` over the registry's messenger
    /// (Protocol/reflection.md), so that `channelbridge list` prints every channel the plugins set
    /// up, and what the host adds to `channels` itself. Reflection is not served unless this is
    /// called: once per registry, before or after registering plugins (each `listChannels` reads
    /// the catalog as it is then). The handler is removed at `tearDown()`; after it, this does
    /// nothing.
    ///
    /// ```swift
    /// let listener = try SocketListener(path: path) { session in
    ///     let registry = PluginRegistry(messenger: session.messenger)
    ///     try? GreeterPlugin.register(with: registry.registrar(forPlugin: GreeterPlugin.pluginKey))
    ///     registry.serveReflection()
    /// }
    /// ```
    public func serveReflection() {
        core.installOwn {
            let reflection = channels.serveReflection(on: messenger)
            return { reflection.setMethodCallHandler(nil) }
        }
    }

    /// Whether a plugin is registered under `key` (it stays so after teardown).
    public func hasPlugin(_ key: String) -> Bool {
        core.publication(of: key) != nil
    }

    /// What the plugin under `key` published: `nil` when no plugin is registered under `key`,
    /// `.nothing` when it is registered but published nothing.
    public func valuePublished(byPlugin key: String) -> PluginPublication? {
        core.publication(of: key)
    }

    /// The registered keys, in registration order.
    public var pluginKeys: [String] {
        core.keys
    }

    /// Whether `tearDown()` has been called.
    public var isTornDown: Bool {
        core.isTornDown
    }

    /// Removes every channel handler the plugins installed through their registrars, then runs
    /// their teardown hooks in registration order. Runs once: a second call (also a concurrent one)
    /// returns when the first has finished. The registry takes no new plugins afterwards.
    public func tearDown() async {
        await core.tearDown()
    }
}

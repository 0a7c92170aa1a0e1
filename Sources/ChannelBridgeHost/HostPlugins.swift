public import ChannelBridgePlugins

/// Plugins a host registers in every session besides the built-in ones. The stock
/// `extension-host` has none; a custom host — an executable that links its plugins and runs
/// `ExtensionHostCommand.main(plugins:)` — passes them here.
///
/// ```swift
/// // main.swift of a host with Flutter-style plugins (the `Flutter` module):
/// var catalogue = PluginCatalogue()
/// try catalogue.addFlutterPlugins([BatteryPlugin.self])                 // by name, like built-ins
/// let plugins = HostPlugins(catalogue: catalogue) { registry in         // and a generated registrant
///     GeneratedPluginRegistrant.register(with: FlutterEngine.engine(for: registry))
/// }
/// await ExtensionHostCommand.main(plugins: plugins)    // options, signals, exit status
/// ```
public struct HostPlugins: Sendable {
    /// Plugin types by key, registered in each session by name like the built-in ones (after
    /// them, in key order) and selectable with `--plugin`. A key may not repeat a built-in one.
    package var catalogue: PluginCatalogue
    /// Runs once per session after its plugins are registered, on the accepting thread before the
    /// session reads anything, with the session's registry (whose environment holds the
    /// `extensionRequest`). An error it throws is logged; the session goes on.
    package var setUpSession: (@Sendable (PluginRegistry) throws -> Void)?

    /// Plugins by key, and a setup run once per session with its registry.
    public init(
        catalogue: PluginCatalogue = PluginCatalogue(),
        setUpSession: (@Sendable (PluginRegistry) throws -> Void)? = nil
    ) {
        self.catalogue = catalogue
        self.setUpSession = setUpSession
    }

    /// The built-in plugins and these, by key.
    ///
    /// - Throws: `HostError` `unknownPlugin` when a key repeats a built-in one.
    func catalogue(addingTo builtIn: PluginCatalogue) throws(HostError) -> PluginCatalogue {
        var all = builtIn
        for key in catalogue.keys {
            do {
                try all.add(catalogue.plugins[key]!, as: key)
            } catch {
                throw HostError(.unknownPlugin, "the host's plugin '\(key)' has the name of a built-in plugin")
            }
        }
        return all
    }
}

/// The extension request of the host, for plugins that end it (a Flutter-style `exit` handler).
package enum ExtensionRequestKey: PluginEnvironmentKey {
    package static let defaultValue: ExtensionRequest? = nil
}

extension PluginEnvironment {
    /// The request every session of the host shares (`NSExtensionContext`); set by the host.
    public var extensionRequest: ExtensionRequest? {
        get { self[ExtensionRequestKey.self] }
        set { self[ExtensionRequestKey.self] = newValue }
    }
}

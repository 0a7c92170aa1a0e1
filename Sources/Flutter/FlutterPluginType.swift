public import ChannelBridgePlugins

/// A Flutter plugin as a native `Plugin` type, so that a `PluginCatalogue` (and a host) can
/// register it by name next to native plugins: `register(with:)` hands the plugin a
/// `FlutterPluginRegistrar` over the native registrar, on its session's `FlutterEngine`.
///
/// ```swift
/// var catalogue = BuiltInPlugins.catalogue
/// try catalogue.add(FlutterPluginType<BatteryPlugin>.self)            // under "BatteryPlugin"
/// try catalogue.add(FlutterPluginType<BatteryPlugin>.self, as: "Battery")
/// ```
///
/// The plugin's key, like Flutter's generated registrant, is its class name. Every Flutter plugin
/// of a session shares the session's one engine, and so its platform executor.
public enum FlutterPluginType<P: FlutterPlugin>: Plugin {
    public static var pluginKey: String { String(describing: P.self) }

    public static func register(with registrar: PluginRegistrar) throws {
        let engine = EngineTable.engine(for: registrar.messenger) {
            FlutterEngine(messenger: registrar.messenger, registry: nil, options: FlutterEngine.Options())
        }
        P.register(with: engine.adopt(registrar))
    }
}

extension PluginCatalogue {
    /// Files each Flutter plugin type under its class name.
    ///
    /// - Throws: `PluginError` `duplicateKey` when the catalogue already has one of the names.
    public mutating func addFlutterPlugins(_ types: [any FlutterPlugin.Type]) throws(PluginError) {
        for type in types {
            try add(type.nativePluginType)
        }
    }
}

extension FlutterPlugin {
    /// This plugin type as a native `Plugin` type (`FlutterPluginType<Self>`).
    public static var nativePluginType: any Plugin.Type { FlutterPluginType<Self>.self }
}

/// The plugin types known by name: what a `PluginRegistrant` can register. Whoever knows the
/// plugins builds it (the extension host lists its built-in ones).
///
/// ```swift
/// let catalogue = try PluginCatalogue([SharedPreferenceAppGroupPlugin.self, GreeterPlugin.self])
/// catalogue.keys                                  // ["GreeterPlugin", "SharedPreferenceAppGroupPlugin"]
/// let type = try catalogue.plugin(named: "GreeterPlugin")
/// ```
public struct PluginCatalogue: Sendable {
    /// The plugin types by key.
    public private(set) var plugins: [String: any Plugin.Type]

    public init(_ plugins: [String: any Plugin.Type] = [:]) {
        self.plugins = plugins
    }

    /// Files each type under its `pluginKey`.
    ///
    /// - Throws: `PluginError` `duplicateKey` when two types have the same key.
    public init(_ types: [any Plugin.Type]) throws(PluginError) {
        self.plugins = [:]
        for type in types {
            try add(type)
        }
    }

    /// Files `type` under `key` (default: its `pluginKey`).
    ///
    /// - Throws: `PluginError` `duplicateKey` when the catalogue already has a plugin under that key.
    public mutating func add(_ type: any Plugin.Type, as key: String? = nil) throws(PluginError) {
        let key = key ?? type.pluginKey
        if plugins[key] != nil {
            throw PluginError(.duplicateKey, "The catalogue already has a plugin named '\(key)'", key: key)
        }
        plugins[key] = type
    }

    /// Every known key, sorted.
    public var keys: [String] {
        plugins.keys.sorted()
    }

    public subscript(key: String) -> (any Plugin.Type)? {
        plugins[key]
    }

    /// The type filed under `key`.
    ///
    /// - Throws: `PluginError` `unknownPlugin`, whose message lists the known keys, sorted.
    public func plugin(named key: String) throws(PluginError) -> any Plugin.Type {
        guard let type = plugins[key] else { throw .unknownPlugin(key, known: keys) }
        return type
    }
}

package import ChannelBridgePlugins
import ChannelBridgeSharedPreferences

/// The plugins every host session gets, by name, unless `--plugin` narrows them.
package enum BuiltInPlugins {
    /// The built-in plugin types by key.
    package static let catalogue = PluginCatalogue([
        SharedPreferenceAppGroupPlugin.pluginKey: SharedPreferenceAppGroupPlugin.self
    ])

    /// The keys a session registers: every built-in one, or `selection` checked against the catalogue.
    ///
    /// - Throws: `HostError` `unknownPlugin` naming the unknown key and listing the known ones.
    package static func keys(selecting selection: [String]?) throws(HostError) -> [String] {
        try keys(selecting: selection, in: catalogue)
    }

    /// The keys a session registers from `catalogue`: every one, or `selection` checked against it.
    static func keys(selecting selection: [String]?, in catalogue: PluginCatalogue) throws(HostError) -> [String] {
        guard let selection else { return catalogue.keys }
        for key in selection {
            do {
                _ = try catalogue.plugin(named: key)
            } catch {
                throw HostError(.unknownPlugin, "--plugin \(key): \(error.message)")
            }
        }
        return selection
    }
}

/// Registers plugins by name into a registry, as Flutter's generated registrant does with
/// `[registry registrarForPlugin:@"SharedPreferenceAppGroupPlugin"]` followed by the plugin's
/// `registerWithRegistrar:`.
///
/// ```swift
/// let registrant = PluginRegistrant(catalogue: catalogue)
/// try await registrant.register(with: registry)                         // every known plugin
/// try await registrant.register(["SharedPreferenceAppGroupPlugin"], with: otherRegistry)
/// ```
public struct PluginRegistrant: Sendable {
    public let catalogue: PluginCatalogue

    public init(catalogue: PluginCatalogue) {
        self.catalogue = catalogue
    }

    /// Registers every plugin of the catalogue, in key order.
    public func register(with registry: PluginRegistry) async throws(PluginError) {
        try await register(catalogue.keys, with: registry)
    }

    /// Registers the plugins named `keys`, in the order given.
    ///
    /// Every name is checked before anything is registered: an unknown name (`unknownPlugin`,
    /// listing the known ones), a name given twice or already registered (`duplicateKey`) registers
    /// nothing. A plugin whose `register(with:)` throws stops the registration there
    /// (`registrationFailed`): the plugins before it stay registered, it leaves nothing behind.
    public func register(_ keys: [String], with registry: PluginRegistry) async throws(PluginError) {
        for (key, type) in try checked(keys, with: registry) {
            try await registry.register(type, forKey: key)
        }
    }

    /// `register(_:with:)` for a caller on a thread that must not wait for a task (the host's
    /// accepting thread); see `PluginRegistry.registerWithoutWaiting`.
    package func registerWithoutWaiting(_ keys: [String], with registry: PluginRegistry) throws(PluginError) {
        for (key, type) in try checked(keys, with: registry) {
            try registry.registerWithoutWaiting(type, forKey: key)
        }
    }

    private func checked(
        _ keys: [String], with registry: PluginRegistry
    ) throws(PluginError)
        -> [(key: String, type: any Plugin.Type)]
    {
        var types: [(key: String, type: any Plugin.Type)] = []
        var seen: Set<String> = []
        for key in keys {
            let type = try catalogue.plugin(named: key)
            guard seen.insert(key).inserted, !registry.hasPlugin(key) else { throw .duplicateKey(key) }
            types.append((key, type))
        }
        return types
    }
}

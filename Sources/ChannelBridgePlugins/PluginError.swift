/// A plugin could not be registered, or a registry was used after its teardown.
///
/// Every error names the plugin key, because the person reading it has to find either the
/// registrant that asked for the key or the plugin that failed.
///
/// ```swift
/// do {
///     try await PluginRegistrant(catalogue: catalogue).register(["Greeter"], with: registry)
/// } catch let error where error.code == .unknownPlugin {
///     print(error)   // unknownPlugin: No plugin named 'Greeter'; known plugins: GreeterPlugin, …
/// }
/// ```
public struct PluginError: Error, Sendable, CustomStringConvertible {
    /// What went wrong; extensible without breaking callers that switch on known codes.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        private let name: String
        private init(_ name: String) { self.name = name }
        public var description: String { name }

        /// The key is already registered in this registry (Flutter asserts; we throw).
        public static let duplicateKey = Code("duplicateKey")
        /// No plugin is known by this name in the catalogue.
        public static let unknownPlugin = Code("unknownPlugin")
        /// The plugin's `register(with:)` threw; `underlying` holds what it threw.
        public static let registrationFailed = Code("registrationFailed")
        /// The registry has been torn down and takes no more plugins.
        public static let registryTornDown = Code("registryTornDown")
    }

    public var code: Code
    public var message: String
    /// The plugin key concerned.
    public var key: String
    /// For `unknownPlugin`: every name the catalogue knows, sorted.
    public var knownKeys: [String]
    /// For `registrationFailed`: the error the plugin threw.
    public var underlying: (any Error)?

    public init(_ code: Code, _ message: String, key: String, knownKeys: [String] = [], underlying: (any Error)? = nil)
    {
        self.code = code
        self.message = message
        self.key = key
        self.knownKeys = knownKeys
        self.underlying = underlying
    }

    public var description: String {
        "\(code): \(message)"
    }
}

extension PluginError {
    static func duplicateKey(_ key: String) -> PluginError {
        PluginError(.duplicateKey, "A plugin is already registered under the key '\(key)'", key: key)
    }

    static func unknownPlugin(_ key: String, known: [String]) -> PluginError {
        let list = known.isEmpty ? "none" : known.joined(separator: ", ")
        return PluginError(
            .unknownPlugin, "No plugin named '\(key)'; known plugins: \(list)", key: key, knownKeys: known)
    }

    static func registrationFailed(_ key: String, _ error: any Error) -> PluginError {
        PluginError(
            .registrationFailed, "The plugin '\(key)' failed to register: \(error)", key: key, underlying: error)
    }

    static func registryTornDown(_ key: String) -> PluginError {
        PluginError(.registryTornDown, "Cannot register '\(key)': the plugin registry has been torn down", key: key)
    }
}

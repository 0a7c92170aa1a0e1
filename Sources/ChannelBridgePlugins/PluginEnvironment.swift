/// A key into `PluginEnvironment`: its value type and the value plugins see when the host set none.
///
/// ```swift
/// enum GreetingKey: PluginEnvironmentKey {
///     static let defaultValue = "Hello"
/// }
///
/// extension PluginEnvironment {
///     var greeting: String {
///         get { self[GreetingKey.self] }
///         set { self[GreetingKey.self] = newValue }
///     }
/// }
/// ```
public protocol PluginEnvironmentKey {
    associatedtype Value: Sendable
    static var defaultValue: Value { get }
}

/// Typed values a host hands to every plugin of a registry, in the manner of SwiftUI's
/// `EnvironmentValues`: shared services (a preference store, the entitled app groups) reach plugins
/// whose `register(with:)` takes nothing but the registrar.
///
/// Each module defines its keys and, usually, a property per key on this type, so that hosts write
/// `environment.entitledAppGroups = ["group.example"]` and plugins read
/// `registrar.environment.entitledAppGroups`.
///
/// ```swift
/// var environment = PluginEnvironment()
/// environment[GreetingKey.self] = "Bonjour"
/// let registry = PluginRegistry(messenger: connection, environment: environment)
/// ```
public struct PluginEnvironment: Sendable {
    private var values: [ObjectIdentifier: any Sendable] = [:]

    public init() {}

    /// The value set for `key`, else its `defaultValue`.
    public subscript<Key: PluginEnvironmentKey>(key: Key.Type) -> Key.Value {
        get {
            // Only the setter below stores under this identifier, always a `Key.Value`.
            values[ObjectIdentifier(key)].flatMap { $0 as? Key.Value } ?? Key.defaultValue
        }
        set {
            values[ObjectIdentifier(key)] = newValue
        }
    }

    /// Whether a value was set for `key` (as opposed to reading its default).
    public func contains<Key: PluginEnvironmentKey>(_ key: Key.Type) -> Bool {
        values[ObjectIdentifier(key)] != nil
    }

    /// A copy with `value` set for `key`, for building an environment in one expression.
    public func setting<Key: PluginEnvironmentKey>(_ key: Key.Type, to value: Key.Value) -> PluginEnvironment {
        var copy = self
        copy[key] = value
        return copy
    }
}

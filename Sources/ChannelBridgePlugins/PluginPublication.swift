/// What a registered plugin published through `PluginRegistrar.publish(_:)`.
///
/// `PluginRegistry.valuePublished(byPlugin:)` answers `nil` for a key that was never registered and
/// `.nothing` for a registered plugin that published nothing (where Flutter stores `NSNull`).
///
/// ```swift
/// switch registry.valuePublished(byPlugin: "SharedPreferenceAppGroupPlugin") {
/// case nil: print("not registered")
/// case .nothing?: print("registered, published nothing")
/// case .value(let value)?: print("published \(value)")
/// }
/// ```
public enum PluginPublication: Sendable {
    case nothing
    case value(any Sendable)

    /// The published value, or `nil` for `.nothing`.
    public var value: (any Sendable)? {
        if case .value(let value) = self { return value }
        return nil
    }

    /// The published value as a `T`, or `nil` for `.nothing` or a value of another type.
    public func value<T>(as type: T.Type) -> T? {
        value as? T
    }
}

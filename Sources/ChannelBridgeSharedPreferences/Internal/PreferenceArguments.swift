import ChannelBridgeCodec

/// Reads a call's arguments map, answering `INVALID_ARGUMENTS` naming the method and argument.
struct PreferenceArguments {
    let method: String
    let arguments: StandardValue

    init(_ call: MethodCall) {
        self.method = call.method
        self.arguments = call.arguments
    }

    /// The string argument `name`.
    func string(_ name: String) throws(MethodError) -> String {
        let value = try member(name)
        guard case .string(let string) = value else {
            throw PreferenceErrors.invalidArguments(
                method: method, argument: name,
                "the argument '\(name)' must be a String, got \(PreferenceType.typeName(of: value))")
        }
        return string
    }

    /// The optional string argument `name`: `nil` when absent or null.
    func optionalString(_ name: String) throws(MethodError) -> String? {
        guard let value = arguments[name], value != .null else { return nil }
        return try string(name)
    }

    /// The list argument `name` (a Dart `List`, any elements).
    func list(_ name: String) throws(MethodError) -> [StandardValue] {
        let value = try member(name)
        guard case .list(let elements) = value else {
            throw PreferenceErrors.invalidArguments(
                method: method, argument: name,
                "the argument '\(name)' must be a List, got \(PreferenceType.typeName(of: value))")
        }
        return elements
    }

    /// The `value` of a setter for `type`: `nil` to remove the key.
    func value(for type: PreferenceType, key: String) throws(MethodError) -> StandardValue? {
        let value = try member("value")
        if value == .null { return nil }
        guard type.accepts(value) else {
            throw PreferenceErrors.invalidArguments(
                method: method, argument: "value",
                "the argument 'value' for key '\(key)' must be \(type.name) or null, got \(PreferenceType.typeName(of: value))"
            )
        }
        return value
    }

    private func member(_ name: String) throws(MethodError) -> StandardValue {
        guard case .map = arguments else {
            throw PreferenceErrors.invalidArguments(
                method: method, argument: nil,
                "the arguments must be a map with '\(name)', got \(PreferenceType.typeName(of: arguments))")
        }
        guard let value = arguments[name] else {
            let hint = name == "value" ? " (pass null to remove the key)" : ""
            throw PreferenceErrors.invalidArguments(
                method: method, argument: name, "the argument '\(name)' is missing\(hint)")
        }
        return value
    }
}

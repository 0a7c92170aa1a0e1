import ChannelBridgeCodec

/// The value types of the typed getters and setters (`getInt`, `setStringArray`, …), named as Dart
/// names them, since that is what the caller wrote.
enum PreferenceType: Sendable {
    case bool, int, double, string, stringArray, bytes
    /// Any list (`appendToList`'s target); no getter or setter has this type.
    case list

    var name: String {
        switch self {
        case .bool: "bool"
        case .int: "int"
        case .double: "double"
        case .string: "String"
        case .stringArray: "List<String>"
        case .bytes: "Uint8List"
        case .list: "List"
        }
    }

    /// What a getter answers for `stored`, or `nil` when it is of another type. Ints keep their
    /// width; `double` widens an int.
    func read(_ stored: StandardValue) -> StandardValue? {
        switch (self, stored) {
        case (.bool, .bool), (.int, .int32), (.int, .int64), (.double, .float64), (.string, .string),
            (.bytes, .uint8List):
            return stored
        case (.double, .int32(let n)):
            return .float64(Double(n))
        case (.double, .int64(let n)):
            return .float64(Double(n))
        case (.stringArray, _) where stored.stringListValue != nil:
            return stored
        case (.list, .list):
            return stored
        default:
            return nil
        }
    }

    /// Whether a setter stores `value` as it is.
    func accepts(_ value: StandardValue) -> Bool {
        switch (self, value) {
        case (.bool, .bool), (.int, .int32), (.int, .int64), (.double, .float64), (.string, .string),
            (.bytes, .uint8List):
            return true
        case (.stringArray, _):
            return value.stringListValue != nil
        case (.list, .list):
            return true
        default:
            return false
        }
    }

    /// The Dart name of a value's type, for messages.
    static func typeName(of value: StandardValue) -> String { value.dartTypeName }
}

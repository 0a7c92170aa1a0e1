extension StandardValue {
    /// The Dart name of this value's type, for error messages a Flutter developer reads
    /// ("must be a String, got int (int32)").
    public var dartTypeName: String {
        switch self {
        case .null: "null"
        case .bool: "bool"
        case .int32: "int (int32)"
        case .int64: "int (int64)"
        case .float64: "double"
        case .string: "String"
        case .uint8List: "Uint8List"
        case .int32List: "Int32List"
        case .int64List: "Int64List"
        case .float32List: "Float32List"
        case .float64List: "Float64List"
        case .list(let elements): !elements.isEmpty && stringListValue != nil ? "List<String>" : "List"
        case .map: "Map"
        case .custom(let custom): "a custom value (type \(custom.tag))"
        }
    }
}

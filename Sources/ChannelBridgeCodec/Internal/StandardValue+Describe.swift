extension StandardValue {
    /// What a value is, for "found …" in error messages: its Standard type and, for scalars, the
    /// value (`int32 3`, `String "Ada"`, `Map of 2 entries`).
    static func describe(_ value: StandardValue) -> String {
        switch value {
        case .null: return "null"
        case .bool(let b): return "bool \(b)"
        case .int32(let v): return "int32 \(v)"
        case .int64(let v): return "int64 \(v)"
        case .float64(let v): return "double \(v)"
        case .string(let s):
            // Long strings are cut: the message names the value, it does not carry it.
            let shown = s.count > 40 ? String(s.prefix(40)) + "…" : s
            return "String \"\(shown)\""
        case .uint8List(let v): return "Uint8List of \(count(v.count, "byte"))"
        case .int32List(let v): return "Int32List of \(count(v.count, "element"))"
        case .int64List(let v): return "Int64List of \(count(v.count, "element"))"
        case .float32List(let v): return "Float32List of \(count(v.count, "element"))"
        case .float64List(let v): return "Float64List of \(count(v.count, "element"))"
        case .list(let v): return "List of \(count(v.count, "element"))"
        case .map(let v): return "Map of \(count(v.count, "entry", plural: "entries"))"
        case .custom(let c): return "a custom value (type \(c.tag))"
        }
    }

    private static func count(_ n: Int, _ noun: String, plural: String? = nil) -> String {
        "\(n) " + (n == 1 ? noun : plural ?? noun + "s")
    }
}

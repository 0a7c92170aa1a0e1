/// The coding keys the Standard value coders put into coding paths themselves: list indices, the
/// keys of dictionary entries, and `super`.
struct StandardCodingKey: CodingKey, Sendable {
    enum Kind: Sendable {
        /// A position in a list: `[2]` in a rendered path.
        case index
        /// A struct field or `super`: `.name`.
        case field
        /// A string key of a map decoded or encoded as a dictionary: `.name`, or `["a b"]` when
        /// it does not read as a name.
        case stringKey
        /// Any other key of such a map (an int, a bool, a list…): `[5]`, `[bool true]`.
        case otherKey
    }

    let stringValue: String
    let intValue: Int?
    let kind: Kind

    init(stringValue: String) {
        self.stringValue = stringValue
        self.intValue = nil
        self.kind = .field
    }

    init(intValue: Int) {
        self.stringValue = "\(intValue)"
        self.intValue = intValue
        self.kind = .index
    }

    /// The path element for the value under `key` in a map decoded or encoded as a dictionary.
    init(mapKey key: StandardValue) {
        switch key {
        case .string(let string):
            (stringValue, intValue, kind) = (string, nil, .stringKey)
        case .int32(let int):
            (stringValue, intValue, kind) = ("\(int)", Int(int), .otherKey)
        case .int64(let int):
            (stringValue, intValue, kind) = ("\(int)", Int(exactly: int), .otherKey)
        default:
            (stringValue, intValue, kind) = (StandardValue.describe(key), nil, .otherKey)
        }
    }

    /// The path element for the key itself of the entry at `index` of such a map.
    init(keyOfEntry index: Int) {
        (stringValue, intValue, kind) = ("key \(index)", nil, .otherKey)
    }

    static let `super` = StandardCodingKey(stringValue: "super")
}

/// A coding path read the way a Swift or Dart programmer writes an access: `user.tags[2]`.
func renderCodingPath(_ path: [any CodingKey]) -> String {
    var text = ""
    for key in path {
        let kind = (key as? StandardCodingKey)?.kind ?? .field
        switch kind {
        case .index, .otherKey:
            text += "[\(key.stringValue)]"
        case .stringKey where !isPlainName(key.stringValue):
            text += "[\"\(key.stringValue)\"]"
        case .field, .stringKey:
            text += text.isEmpty ? key.stringValue : "." + key.stringValue
        }
    }
    return text
}

/// Names that read unambiguously after a dot.
private func isPlainName(_ name: String) -> Bool {
    !name.isEmpty && name.utf8.allSatisfy { byte in
        (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A) || byte == 0x5F
    }
}

/// "`path`: message", or the message alone for the top-level value.
func codingErrorMessage(path: [any CodingKey], _ message: String) -> String {
    path.isEmpty ? message : "`\(renderCodingPath(path))`: \(message)"
}

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

/// Typed value notation (TVN): JSON with one-key objects that say exactly which Standard value is
/// meant (`{"int64": "5"}`, `{"float32list": [0.5]}`, `{"map": [[k, v], …]}`). The CLI, the vector
/// files and the preference store use it. See `Protocol/typed-value-notation.md`.
///
/// ```swift
/// let value = try TypedValueNotation.parse(#"{"map": [["a", {"int32": 1}]]}"#)
/// TypedValueNotation.canonicalText(value)   // {"map":[["a",{"int32":1}]]}
/// let typed = try TypedValueNotation.parse(#"{"key": "k", "value": 3}"#, lenient: true)
/// ```
public enum TypedValueNotation {
    /// Parses TVN text. `lenient` (for hand-typed CLI arguments only) also reads bare numbers and
    /// plain JSON objects as string-keyed maps.
    public static func parse(_ text: String, lenient: Bool = false) throws(CodecError) -> StandardValue {
        let json: JSONValue
        do {
            json = try JSONValue.parse(text)
        } catch {
            throw CodecError(.invalidNotation, "not JSON: \(error.description)", offset: error.offset)
        }
        return try value(from: json, lenient: lenient)
    }

    /// Reads a parsed JSON document as TVN.
    public static func value(from json: JSONValue, lenient: Bool = false) throws(CodecError) -> StandardValue {
        try TVNReader(lenient: lenient).read(json, path: "$")
    }

    /// The canonical JSON of a value.
    public static func json(for value: StandardValue) -> JSONValue {
        switch value {
        case .null: return .null
        case .bool(let flag): return .bool(flag)
        case .int32(let v): return tagged("int32", .number(String(v)))
        case .int64(let v): return tagged("int64", .string(String(v)))
        case .float64(let v): return tagged("float64", float(v))
        case .string(let s): return .string(s)
        case .uint8List(let v): return tagged("uint8list", .string(Hex.encode(v)))
        case .int32List(let v): return tagged("int32list", .array(v.map { .number(String($0)) }))
        case .int64List(let v): return tagged("int64list", .array(v.map { .string(String($0)) }))
        case .float64List(let v): return tagged("float64list", .array(v.map(float)))
        case .float32List(let v): return tagged("float32list", .array(v.map(float32)))
        case .list(let elements): return .array(elements.map(json(for:)))
        case .map(let entries):
            return tagged("map", .array(entries.map { .array([json(for: $0.key), json(for: $0.value)]) }))
        case .custom(let custom):
            if let raw = custom.as(RawCustomValue.self) {
                return .object([.init("custom", .number(String(raw.customTag))), .init("hex", .string(Hex.encode(raw.payload)))])
            }
            // A typed custom value has no byte form without its codec extension; describe it.
            return .object([.init("custom", .number(String(custom.tag))), .init("description", .string(String(describing: custom.base)))])
        }
    }

    public static func canonicalText(_ value: StandardValue) -> String {
        json(for: value).text
    }

    /// The text of a float64 in TVN: the shortest text that round-trips, specials as strings, and
    /// a NaN other than the canonical quiet NaN as `"NaN:"` and its 16 hex digits of bits.
    public static func float(_ value: Double) -> JSONValue {
        if value.isNaN {
            if value.bitPattern == Double.nan.bitPattern { return .string("NaN") }
            return .string("NaN:" + hexBits(value.bitPattern, digits: 16))
        }
        if value.isInfinite { return .string(value < 0 ? "-Infinity" : "Infinity") }
        if value == 0 && value.sign == .minus { return .string("-0.0") }
        return .number(value.description)
    }

    /// A Float32List element: widened to a double for its text; a non-canonical NaN keeps its 8 hex digits.
    static func float32(_ value: Float) -> JSONValue {
        if value.isNaN && value.bitPattern != Float.nan.bitPattern {
            return .string("NaN:" + hexBits(UInt64(value.bitPattern), digits: 8))
        }
        return float(Double(value))
    }

    private static func hexBits(_ bits: UInt64, digits: Int) -> String {
        let text = String(bits, radix: 16)
        return String(repeating: "0", count: digits - text.count) + text
    }

    private static func tagged(_ name: String, _ value: JSONValue) -> JSONValue {
        .object([JSONValue.Member(name, value)])
    }
}

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
    /// How deep lists and maps may nest in a TVN value, counted in values as the Standard codec
    /// counts them (a map is one level): the codec's default limit, so that every value the codec
    /// decodes has a TVN text that reads back, and every value TVN reads can be encoded and decoded.
    public static let maxDepth = 1_000

    /// The JSON nesting the text of a value `maxDepth` levels deep can need: a map takes three JSON
    /// levels (`{"map": [[k, v]]}`: object, array of pairs, pair) and a typed list at the bottom two
    /// (`{"int32list": […]}`). A document that embeds TVN values adds its own levels to this.
    public static let maxJSONDepth = 3 * maxDepth + 2

    /// Parses TVN text. `lenient` (for hand-typed CLI arguments only) also reads bare numbers and
    /// plain JSON objects as string-keyed maps.
    public static func parse(_ text: String, lenient: Bool = false) throws(CodecError) -> StandardValue {
        let json: JSONValue
        do {
            json = try JSONValue.parse(text, maxDepth: maxJSONDepth)
        } catch {
            throw CodecError(
                error.code == .nestingTooDeep ? .nestingTooDeep : .invalidNotation,
                "not JSON: \(error.description)", offset: error.offset)
        }
        return try value(from: json, lenient: lenient)
    }

    /// Reads a parsed JSON document as TVN. Lists and maps nested deeper than `maxDepth` are
    /// refused (`nestingTooDeep`).
    public static func value(from json: JSONValue, lenient: Bool = false) throws(CodecError) -> StandardValue {
        try TVNReader(lenient: lenient, maxDepth: maxDepth).read(json, path: "$", depth: 0)
    }

    /// The canonical JSON of a value.
    ///
    /// Lists and maps recurse through small functions of their own, apart from the scalars' cases,
    /// so that a value 1,000 levels deep costs little stack even in an unoptimized build.
    public static func json(for value: StandardValue) -> JSONValue {
        switch value {
        case .list(let elements): return .array(json(forElements: elements))
        case .map(let entries): return tagged("map", .array(json(forPairs: entries)))
        default: return json(forScalar: value)
        }
    }

    private static func json(forElements elements: [StandardValue]) -> [JSONValue] {
        var out: [JSONValue] = []
        out.reserveCapacity(elements.count)
        for element in elements { out.append(json(for: element)) }
        return out
    }

    private static func json(forPairs entries: [StandardValue.MapEntry]) -> [JSONValue] {
        var out: [JSONValue] = []
        out.reserveCapacity(entries.count)
        for entry in entries { out.append(.array([json(for: entry.key), json(for: entry.value)])) }
        return out
    }

    private static func json(forScalar value: StandardValue) -> JSONValue {
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
        case .custom(let custom):
            if let raw = custom.as(RawCustomValue.self) {
                return .object([
                    .init("custom", .number(String(raw.customTag))), .init("hex", .string(Hex.encode(raw.payload))),
                ])
            }
            // A typed custom value has no byte form without its codec extension; describe it.
            return .object([
                .init("custom", .number(String(custom.tag))),
                .init("description", .string(String(describing: custom.base))),
            ])
        case .list, .map:
            return json(for: value)
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

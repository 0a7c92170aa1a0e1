import ChannelBridgeCodec

/// Values as a recorded transcript writes them: TVN, with redacted parts replaced by a matcher of
/// their type whose example is a placeholder (Protocol/transcript.md §4), so that `mock` can still
/// answer and `verify` still checks the type.
struct RecordedValue {
    /// Map keys (strings) whose values are redacted wherever they are.
    let redactedKeys: Set<String>

    /// `value` as TVN JSON, and whether anything in it was redacted.
    func json(_ value: StandardValue) -> (JSONValue, redacted: Bool) {
        var redacted = false
        let json = build(value, &redacted)
        return (json, redacted)
    }

    /// `value` as TVN text, and whether anything in it was redacted: with no key to redact,
    /// written straight from the value (the bytes `json(value).text` gives).
    func text(_ value: StandardValue) -> ([UInt8], redacted: Bool) {
        guard !redactedKeys.isEmpty else { return (TVNWriter.canonicalUTF8(value), false) }
        let (json, redacted) = json(value)
        return (Array(json.text.utf8), redacted)
    }

    private func build(_ value: StandardValue, _ redacted: inout Bool) -> JSONValue {
        switch value {
        case .list(let elements):
            return .array(elements.map { build($0, &redacted) })
        case .map(let entries):
            return .object([
                JSONValue.Member(
                    "map",
                    .array(
                        entries.map { entry in
                            if case .string(let key) = entry.key, redactedKeys.contains(key) {
                                redacted = true
                                return .array([
                                    TypedValueNotation.json(for: entry.key), Self.placeholder(for: entry.value),
                                ])
                            }
                            return .array([build(entry.key, &redacted), build(entry.value, &redacted)])
                        }))
            ])
        default:
            return TypedValueNotation.json(for: value)
        }
    }

    /// `{"$any": TYPE, "example": PLACEHOLDER}` for a value of `value`'s type.
    static func placeholder(for value: StandardValue) -> JSONValue {
        let (type, example): (String, StandardValue) =
            switch value {
            case .null: ("null", .null)
            case .bool: ("bool", false)
            case .int32: ("int32", .int32(0))
            case .int64: ("int64", .int64(0))
            case .float64: ("float64", .float64(0))
            case .string: ("string", "REDACTED")
            case .uint8List: ("uint8list", .uint8List([]))
            case .int32List: ("int32list", .int32List([]))
            case .int64List: ("int64list", .int64List([]))
            case .float32List: ("float32list", .float32List([]))
            case .float64List: ("float64list", .float64List([]))
            case .list: ("list", .list([]))
            case .map: ("map", .map([]))
            case .custom: ("value", .null)
            }
        return .object([
            JSONValue.Member("$any", .string(type)), JSONValue.Member("example", TypedValueNotation.json(for: example)),
        ])
    }
}

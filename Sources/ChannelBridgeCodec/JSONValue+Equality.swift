// Strings and member names compare by UTF-8 code units, as JSON texts and Dart compare them, not
// by Swift's canonical equivalence: `{"\u00e9":1}` and `{"e\u0301":1}` are two documents and
// `"\u00e9"` and `"e\u0301"` are two member names. Numbers compare as their text.

extension JSONValue {
    public static func == (lhs: JSONValue, rhs: JSONValue) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): return true
        case let (.bool(a), .bool(b)): return a == b
        case let (.number(a), .number(b)): return CodeUnitString.equal(a, b)
        case let (.string(a), .string(b)): return CodeUnitString.equal(a, b)
        case let (.array(a), .array(b)): return a == b
        case let (.object(a), .object(b)): return a == b
        default: return false
        }
    }

    public func hash(into hasher: inout Hasher) {
        switch self {
        case .null:
            hasher.combine(0 as UInt8)
        case .bool(let v):
            hasher.combine(1 as UInt8)
            hasher.combine(v)
        case .number(let v):
            hasher.combine(2 as UInt8)
            CodeUnitString.hash(v, into: &hasher)
        case .string(let v):
            hasher.combine(3 as UInt8)
            CodeUnitString.hash(v, into: &hasher)
        case .array(let v):
            hasher.combine(4 as UInt8)
            hasher.combine(v)
        case .object(let v):
            hasher.combine(5 as UInt8)
            hasher.combine(v)
        }
    }
}

extension JSONValue.Member {
    public static func == (lhs: JSONValue.Member, rhs: JSONValue.Member) -> Bool {
        CodeUnitString.equal(lhs.key, rhs.key) && lhs.value == rhs.value
    }

    public func hash(into hasher: inout Hasher) {
        CodeUnitString.hash(key, into: &hasher)
        hasher.combine(value)
    }
}

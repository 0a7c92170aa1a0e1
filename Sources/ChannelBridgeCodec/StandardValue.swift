/// A value that Flutter's `StandardMessageCodec` can carry: Flutter's `EncodableValue`, spelled the
/// Swift way.
///
/// Maps are ordered pairs, so encoding is deterministic and any value (null, a list, a map) can be
/// a key. Equality and hashing compare values as the bytes are: floating-point values by their bit
/// patterns, so `NaN` equals itself (a `Set` never loses it) and `-0.0` is distinct from `0.0`;
/// strings by their UTF-8 code units, as Dart compares strings, never by Unicode canonical
/// equivalence, so `.string("\u{E9}")` and `.string("e\u{301}")` are two values and two map keys.
///
/// ```swift
/// let args: StandardValue = ["key": "ShareKey", "count": 3]
/// let bytes = try StandardMessageCodec().encode(args)
/// ```
public enum StandardValue: Sendable {
    case null
    case bool(Bool)
    case int32(Int32)
    case int64(Int64)
    case float64(Double)
    case string(String)
    case uint8List([UInt8])
    case int32List([Int32])
    case int64List([Int64])
    case float32List([Float])
    case float64List([Double])
    case list([StandardValue])
    case map([MapEntry])
    /// A value of a type registered by a codec extension (tag 128...255). Indirect, so that the
    /// existential it holds does not double the size of every value.
    indirect case custom(CustomValue)

    /// One key/value pair of a `.map`, in wire order.
    public struct MapEntry: Sendable, Hashable {
        public var key: StandardValue
        public var value: StandardValue

        public init(_ key: StandardValue, _ value: StandardValue) {
            self.key = key
            self.value = value
        }
    }
}

extension StandardValue {
    /// The Standard codec's type byte for this value.
    public var typeTag: UInt8 {
        switch self {
        case .null: return 0
        case .bool(let b): return b ? 1 : 2
        case .int32: return 3
        case .int64: return 4
        case .float64: return 6
        case .string: return 7
        case .uint8List: return 8
        case .int32List: return 9
        case .int64List: return 10
        case .float64List: return 11
        case .list: return 12
        case .map: return 13
        case .float32List: return 14
        case .custom(let c): return c.tag
        }
    }

    /// An integer picked the way Dart picks it: int32 when it fits, else int64.
    public static func int(_ value: some BinaryInteger) -> StandardValue {
        if let small = Int32(exactly: value) { return .int32(small) }
        return .int64(Int64(value))
    }

    /// Builds a map from pairs in the given order.
    public static func map(_ pairs: KeyValuePairs<StandardValue, StandardValue>) -> StandardValue {
        .map(pairs.map { MapEntry($0.key, $0.value) })
    }

    /// The first value stored under `key` in a `.map`, or `nil` when this is not a map or has no such
    /// key. Keys are compared as `==` compares values (strings by code units).
    public subscript(key: StandardValue) -> StandardValue? {
        guard case .map(let entries) = self else { return nil }
        return entries.first(where: { $0.key == key })?.value
    }
}

/// Flutter's `JSONMessageCodec`: a message is the UTF-8 text of one JSON value.
///
/// Encoding writes compact JSON (map keys must be strings; typed lists become arrays; NaN and the
/// infinities have no JSON form and are refused). Decoding reads integers as int32 when they fit,
/// else int64, other numbers as float64, and objects as maps in document order. The parsed
/// document may take at most `decodingAllowance(forMessageOf:)` bytes of memory (`decodedTooLarge`
/// past it, `Protocol/codec.md` §7.3).
///
/// ```swift
/// let bytes = try JSONMessageCodec().encode(["a": 1])   // {"a":1}
/// ```
public struct JSONMessageCodec: MessageCodec {
    public typealias Message = StandardValue

    public var maxDepth: Int

    public init(maxDepth: Int = 1_000) {
        self.maxDepth = maxDepth
    }

    /// Bytes of memory the parsed document may take per byte of message: `[0,0,…]`, the densest
    /// JSON, takes 12 (one 24-byte value per 2 bytes) and fits; the values built from the document
    /// take at most as much again.
    public static let allowanceBytesPerByte = 12

    /// The most memory the document parsed from a message of `count` bytes may take: 12 × count
    /// + `StandardMessageCodec.allowanceSlack`.
    public static func decodingAllowance(forMessageOf count: Int) -> Int {
        allowanceBytesPerByte * count + StandardMessageCodec.allowanceSlack
    }

    public func encode(_ message: StandardValue) throws(CodecError) -> [UInt8] {
        var out: [UInt8] = []
        JSONWriter.write(try Self.json(for: message), into: &out)
        return out
    }

    /// Zero bytes decode as null, as Flutter's JSON codecs do for an absent message.
    public func decode(_ bytes: [UInt8]) throws(CodecError) -> StandardValue {
        if bytes.isEmpty { return .null }
        return try Self.value(from: try JSONValue.parseMessage(bytes, maxDepth: maxDepth))
    }

    /// The JSON form of a value, or `unencodable` when JSON cannot carry it.
    public static func json(for value: StandardValue) throws(CodecError) -> JSONValue {
        switch value {
        case .null: return .null
        case .bool(let flag): return .bool(flag)
        case .int32(let v): return .number(String(v))
        case .int64(let v): return .number(String(v))
        case .float64(let v): return try number(v)
        case .string(let s): return .string(s)
        case .uint8List(let v): return .array(v.map { .number(String($0)) })
        case .int32List(let v): return .array(v.map { .number(String($0)) })
        case .int64List(let v): return .array(v.map { .number(String($0)) })
        case .float64List(let v):
            var elements: [JSONValue] = []
            for x in v { elements.append(try number(x)) }
            return .array(elements)
        case .float32List(let v):
            var elements: [JSONValue] = []
            for x in v { elements.append(try number(Double(x))) }
            return .array(elements)
        case .list(let values):
            var elements: [JSONValue] = []
            elements.reserveCapacity(values.count)
            for element in values { elements.append(try json(for: element)) }
            return .array(elements)
        case .map(let entries):
            var members: [JSONValue.Member] = []
            members.reserveCapacity(entries.count)
            for entry in entries {
                guard case .string(let key) = entry.key else {
                    throw CodecError(
                        .unencodable,
                        "JSON object keys must be strings, got \(TypedValueNotation.canonicalText(entry.key))")
                }
                members.append(.init(key, try json(for: entry.value)))
            }
            return .object(members)
        case .custom(let custom):
            throw CodecError(.unencodable, "custom values (tag \(custom.tag)) have no JSON form")
        }
    }

    private static func number(_ v: Double) throws(CodecError) -> JSONValue {
        guard v.isFinite else { throw CodecError(.unencodable, "\(v) has no JSON form") }
        return .number(v.description)
    }

    /// The Standard value of parsed JSON. A number outside the float64 range is refused: it would
    /// decode to an infinity, which no JSON encoder can write back.
    public static func value(from json: JSONValue) throws(CodecError) -> StandardValue {
        switch json {
        case .null: return .null
        case .bool(let flag): return .bool(flag)
        case .string(let s): return .string(s)
        case .number(let text):
            if let int = Int64(text) { return .int(int) }
            guard let double = Double(text), double.isFinite else {
                throw CodecError(.invalidJSON, "number \(text) is outside the float64 range")
            }
            return .float64(double)
        case .array(let elements):
            var values: [StandardValue] = []
            values.reserveCapacity(elements.count)
            for element in elements { values.append(try value(from: element)) }
            return .list(values)
        case .object(let members):
            var entries: [StandardValue.MapEntry] = []
            entries.reserveCapacity(members.count)
            for member in members { entries.append(.init(.string(member.key), try value(from: member.value))) }
            return .map(entries)
        }
    }
}

import struct FoundationEssentials.Data

/// The `Decoder` behind `StandardValueDecoder`: one per value that is decoded through containers.
final class ValueDecoder: Decoder {
    let value: StandardValue
    let userInfo: [CodingUserInfoKey: Any]
    private let parent: ValueDecoder?
    private let key: (any CodingKey)?

    init(
        value: StandardValue, userInfo: [CodingUserInfoKey: Any], parent: ValueDecoder? = nil,
        key: (any CodingKey)? = nil
    ) {
        self.value = value
        self.userInfo = userInfo
        self.parent = parent
        self.key = key
    }

    var codingPath: [any CodingKey] {
        var path: [any CodingKey] = []
        var node: ValueDecoder? = self
        while let current = node {
            if let key = current.key { path.append(key) }
            node = current.parent
        }
        return path.reversed()
    }

    /// The path of a value one level down, under `key`.
    func path(_ key: (any CodingKey)?) -> [any CodingKey] {
        guard let key else { return codingPath }
        return codingPath + [key]
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        guard case .map(let entries) = value else { throw mismatch(Key.self, "a Map", value, key: nil) }
        return KeyedDecodingContainer(KeyedValueDecodingContainer<Key>(decoder: self, entries: entries))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        guard let elements = ListView(value) else { throw mismatch([StandardValue].self, "a List", value, key: nil) }
        return UnkeyedValueDecodingContainer(decoder: self, elements: elements)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        SingleValueValueDecodingContainer(decoder: self)
    }

    // MARK: Unboxing

    /// `value`, found under `key` of this decoder's value (`nil`: this decoder's value itself), as a `T`.
    func unbox<T: Decodable>(_ value: StandardValue, as type: T.Type, key: (any CodingKey)?) throws -> T {
        if let special = try decodeSpecial(value, as: T.self, key: key) { return special }
        return try T(from: ValueDecoder(value: value, userInfo: userInfo, parent: self, key: key))
    }

    /// This decoder's own value as a `T`: the top level, or a single value container's value.
    func decodeOwnValue<T: Decodable>(as type: T.Type) throws -> T {
        if let special = try decodeSpecial(value, as: T.self, key: nil) { return special }
        return try T(from: self)
    }

    /// Byte arrays, exact typed lists, dictionaries with any keys and `StandardValue` itself, read
    /// directly; `nil` for everything else.
    private func decodeSpecial<T: Decodable>(
        _ value: StandardValue, as type: T.Type, key: (any CodingKey)?
    ) throws -> T? {
        if T.self == StandardValue.self { return unsafeBitCast(value, to: T.self) }
        if T.self == [UInt8].self || T.self == Data.self {
            switch value {
            case .uint8List(let bytes):
                return T.self == Data.self ? unsafeBitCast(Data(bytes), to: T.self) : unsafeBitCast(bytes, to: T.self)
            case .list, .int32List, .int64List:
                return nil  // a Dart List<int> of bytes: element by element, each checked to fit
            default:
                throw mismatch(T.self, "a Uint8List", value, key: key)
            }
        }
        switch value {
        case .int32List(let elements) where T.self == [Int32].self:
            return unsafeBitCast(elements, to: T.self)
        case .int64List(let elements) where T.self == [Int64].self:
            return unsafeBitCast(elements, to: T.self)
        case .float64List(let elements) where T.self == [Double].self:
            return unsafeBitCast(elements, to: T.self)
        case .float32List(let elements) where T.self == [Float].self:
            return unsafeBitCast(elements, to: T.self)
        case .map(let entries):
            if let dictionary = T.self as? any StandardMapDecodable.Type {
                let child = ValueDecoder(value: value, userInfo: userInfo, parent: self, key: key)
                return try dictionary.init(standardMap: entries, decoder: child) as? T
            }
        default:
            break
        }
        return nil
    }

    func unboxBool(_ value: StandardValue, key: (any CodingKey)?) throws -> Bool {
        guard case .bool(let bool) = value else { throw mismatch(Bool.self, "a bool", value, key: key) }
        return bool
    }

    func unboxString(_ value: StandardValue, key: (any CodingKey)?) throws -> String {
        guard case .string(let string) = value else { throw mismatch(String.self, "a String", value, key: key) }
        return string
    }

    /// A double, or an integer the double holds exactly (Dart's `num`).
    func unboxDouble(_ value: StandardValue, key: (any CodingKey)?) throws -> Double {
        switch value {
        case .float64(let double): return double
        case .int32(let int): return Double(int)
        case .int64(let int):
            if let double = Double(exactly: int) { return double }
            throw corrupted("int64 \(int) has no exact Double", key: key)
        default: throw mismatch(Double.self, "a double", value, key: key)
        }
    }

    func unboxFloat(_ value: StandardValue, key: (any CodingKey)?) throws -> Float {
        let double = try unboxDouble(value, key: key)
        let float = Float(double)
        if float.isInfinite && double.isFinite { throw corrupted("double \(double) does not fit in Float", key: key) }
        return float
    }

    /// An int32 or int64 as any integer type that holds the value.
    func unboxInteger<I: FixedWidthInteger>(_ value: StandardValue, as type: I.Type, key: (any CodingKey)?) throws -> I
    {
        switch value {
        case .int32(let int):
            if let fitting = I(exactly: int) { return fitting }
            throw corrupted("int32 \(int) does not fit in \(I.self)", key: key)
        case .int64(let int):
            if let fitting = I(exactly: int) { return fitting }
            throw corrupted("int64 \(int) does not fit in \(I.self)", key: key)
        default:
            throw mismatch(I.self, "an int", value, key: key)
        }
    }

    // MARK: Errors

    /// `typeMismatch`, or `valueNotFound` when the value is null: "expected a String, found int32 3".
    func mismatch(_ type: Any.Type, _ expected: String, _ found: StandardValue, key: (any CodingKey)?) -> DecodingError
    {
        let context = DecodingError.Context(
            codingPath: path(key),
            debugDescription: "expected \(expected), found \(StandardValue.describe(found))")
        return found == .null ? .valueNotFound(type, context) : .typeMismatch(type, context)
    }

    func corrupted(_ description: String, key: (any CodingKey)?) -> DecodingError {
        .dataCorrupted(DecodingError.Context(codingPath: path(key), debugDescription: description))
    }
}

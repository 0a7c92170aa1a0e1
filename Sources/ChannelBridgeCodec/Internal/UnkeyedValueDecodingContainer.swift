/// The unkeyed container of `ValueDecoder`: a `List` or any typed list, element by element.
struct UnkeyedValueDecodingContainer: UnkeyedDecodingContainer {
    let decoder: ValueDecoder
    let elements: ListView
    private(set) var currentIndex = 0

    init(decoder: ValueDecoder, elements: ListView) {
        self.decoder = decoder
        self.elements = elements
    }

    var codingPath: [any CodingKey] { decoder.codingPath }
    var count: Int? { elements.count }
    var isAtEnd: Bool { currentIndex >= elements.count }

    private var currentKey: StandardCodingKey { StandardCodingKey(intValue: currentIndex) }

    /// The next element; a failure to decode it leaves the container where it was.
    private func next(_ type: Any.Type) throws -> StandardValue {
        guard !isAtEnd else {
            throw DecodingError.valueNotFound(
                type,
                DecodingError.Context(
                    codingPath: codingPath + [currentKey],
                    debugDescription:
                        "missing, the list has only \(elements.count) element\(elements.count == 1 ? "" : "s")"))
        }
        return elements[currentIndex]
    }

    mutating func decodeNil() throws -> Bool {
        guard case .null = try next(Never.self) else { return false }
        currentIndex += 1
        return true
    }

    mutating func decode(_ type: Bool.Type) throws -> Bool {
        try advance(decoder.unboxBool(next(type), key: currentKey))
    }
    mutating func decode(_ type: String.Type) throws -> String {
        try advance(decoder.unboxString(next(type), key: currentKey))
    }
    mutating func decode(_ type: Double.Type) throws -> Double {
        try advance(decoder.unboxDouble(next(type), key: currentKey))
    }
    mutating func decode(_ type: Float.Type) throws -> Float {
        try advance(decoder.unboxFloat(next(type), key: currentKey))
    }
    mutating func decode(_ type: Int.Type) throws -> Int { try integer() }
    mutating func decode(_ type: Int8.Type) throws -> Int8 { try integer() }
    mutating func decode(_ type: Int16.Type) throws -> Int16 { try integer() }
    mutating func decode(_ type: Int32.Type) throws -> Int32 { try integer() }
    mutating func decode(_ type: Int64.Type) throws -> Int64 { try integer() }
    mutating func decode(_ type: UInt.Type) throws -> UInt { try integer() }
    mutating func decode(_ type: UInt8.Type) throws -> UInt8 { try integer() }
    mutating func decode(_ type: UInt16.Type) throws -> UInt16 { try integer() }
    mutating func decode(_ type: UInt32.Type) throws -> UInt32 { try integer() }
    mutating func decode(_ type: UInt64.Type) throws -> UInt64 { try integer() }
    @available(macOS 15.0, *)
    mutating func decode(_ type: Int128.Type) throws -> Int128 { try integer() }
    @available(macOS 15.0, *)
    mutating func decode(_ type: UInt128.Type) throws -> UInt128 { try integer() }

    private mutating func integer<I: FixedWidthInteger>() throws -> I {
        try advance(decoder.unboxInteger(next(I.self), as: I.self, key: currentKey))
    }

    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
        try advance(decoder.unbox(next(type), as: T.self, key: currentKey))
    }

    /// Moves past the element just decoded.
    private mutating func advance<T>(_ value: T) -> T {
        currentIndex += 1
        return value
    }

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy type: NestedKey.Type
    ) throws -> KeyedDecodingContainer<NestedKey> {
        let container = try ValueDecoder(
            value: try next(type), userInfo: decoder.userInfo, parent: decoder, key: currentKey
        )
        .container(keyedBy: NestedKey.self)
        currentIndex += 1
        return container
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        let container = try ValueDecoder(
            value: try next([StandardValue].self), userInfo: decoder.userInfo, parent: decoder,
            key: currentKey
        ).unkeyedContainer()
        currentIndex += 1
        return container
    }

    mutating func superDecoder() throws -> any Decoder {
        let nested = ValueDecoder(
            value: try next((any Decoder).self), userInfo: decoder.userInfo, parent: decoder, key: currentKey)
        currentIndex += 1
        return nested
    }
}

// The three container kinds of ValueDecoder.

struct KeyedValueDecodingContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let decoder: ValueDecoder
    private let entries: [StandardValue.MapEntry]
    /// Position of each string key's last entry, for maps too large to search each time.
    private let index: [String: Int]?

    init(decoder: ValueDecoder, entries: [StandardValue.MapEntry]) {
        self.decoder = decoder
        self.entries = entries
        if entries.count > 12 {
            var index: [String: Int] = [:]
            index.reserveCapacity(entries.count)
            for (position, entry) in entries.enumerated() {
                if case .string(let key) = entry.key { index[key] = position }
            }
            self.index = index
        } else {
            self.index = nil
        }
    }

    var codingPath: [any CodingKey] { decoder.codingPath }

    /// The string keys that name a `Key`, each once, in map order.
    var allKeys: [Key] {
        var seen = Set<String>()
        return entries.compactMap { entry in
            guard case .string(let name) = entry.key, seen.insert(name).inserted else { return nil }
            return Key(stringValue: name)
        }
    }

    /// The value under `key`; the last one when the map repeats the key, as Dart reads it.
    private func lookup(_ key: String) -> StandardValue? {
        if let index { return index[key].map { entries[$0].value } }
        for entry in entries.reversed() {
            if case .string(let name) = entry.key, name == key { return entry.value }
        }
        return nil
    }

    private func value(for key: Key) throws -> StandardValue {
        guard let value = lookup(key.stringValue) else {
            throw DecodingError.keyNotFound(key, DecodingError.Context(codingPath: codingPath, debugDescription: "missing"))
        }
        return value
    }

    func contains(_ key: Key) -> Bool { lookup(key.stringValue) != nil }

    func decodeNil(forKey key: Key) throws -> Bool {
        if case .null = try value(for: key) { return true }
        return false
    }

    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try decoder.unboxBool(try value(for: key), key: key) }
    func decode(_ type: String.Type, forKey key: Key) throws -> String { try decoder.unboxString(try value(for: key), key: key) }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try decoder.unboxDouble(try value(for: key), key: key) }
    func decode(_ type: Float.Type, forKey key: Key) throws -> Float { try decoder.unboxFloat(try value(for: key), key: key) }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try integer(key) }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try integer(key) }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try integer(key) }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try integer(key) }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try integer(key) }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try integer(key) }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try integer(key) }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try integer(key) }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try integer(key) }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try integer(key) }
    @available(macOS 15.0, *)
    func decode(_ type: Int128.Type, forKey key: Key) throws -> Int128 { try integer(key) }
    @available(macOS 15.0, *)
    func decode(_ type: UInt128.Type, forKey key: Key) throws -> UInt128 { try integer(key) }

    private func integer<I: FixedWidthInteger>(_ key: Key) throws -> I {
        try decoder.unboxInteger(try value(for: key), as: I.self, key: key)
    }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        try decoder.unbox(try value(for: key), as: T.self, key: key)
    }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type,
                                               forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
        try ValueDecoder(value: try value(for: key), userInfo: decoder.userInfo, parent: decoder, key: key)
            .container(keyedBy: NestedKey.self)
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        try ValueDecoder(value: try value(for: key), userInfo: decoder.userInfo, parent: decoder, key: key)
            .unkeyedContainer()
    }

    /// The value under `super`, or null when there is none (as `JSONDecoder` does).
    func superDecoder() throws -> any Decoder {
        ValueDecoder(value: lookup("super") ?? .null, userInfo: decoder.userInfo, parent: decoder, key: StandardCodingKey.super)
    }

    func superDecoder(forKey key: Key) throws -> any Decoder {
        ValueDecoder(value: lookup(key.stringValue) ?? .null, userInfo: decoder.userInfo, parent: decoder, key: key)
    }
}

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
            throw DecodingError.valueNotFound(type, DecodingError.Context(
                codingPath: codingPath + [currentKey],
                debugDescription: "missing, the list has only \(elements.count) element\(elements.count == 1 ? "" : "s")"))
        }
        return elements[currentIndex]
    }

    mutating func decodeNil() throws -> Bool {
        guard case .null = try next(Never.self) else { return false }
        currentIndex += 1
        return true
    }

    mutating func decode(_ type: Bool.Type) throws -> Bool { try advance(decoder.unboxBool(next(type), key: currentKey)) }
    mutating func decode(_ type: String.Type) throws -> String { try advance(decoder.unboxString(next(type), key: currentKey)) }
    mutating func decode(_ type: Double.Type) throws -> Double { try advance(decoder.unboxDouble(next(type), key: currentKey)) }
    mutating func decode(_ type: Float.Type) throws -> Float { try advance(decoder.unboxFloat(next(type), key: currentKey)) }
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

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
        let container = try ValueDecoder(value: try next(type), userInfo: decoder.userInfo, parent: decoder, key: currentKey)
            .container(keyedBy: NestedKey.self)
        currentIndex += 1
        return container
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        let container = try ValueDecoder(value: try next([StandardValue].self), userInfo: decoder.userInfo, parent: decoder,
                                         key: currentKey).unkeyedContainer()
        currentIndex += 1
        return container
    }

    mutating func superDecoder() throws -> any Decoder {
        let nested = ValueDecoder(value: try next((any Decoder).self), userInfo: decoder.userInfo, parent: decoder, key: currentKey)
        currentIndex += 1
        return nested
    }
}

struct SingleValueValueDecodingContainer: SingleValueDecodingContainer {
    let decoder: ValueDecoder

    var codingPath: [any CodingKey] { decoder.codingPath }

    func decodeNil() -> Bool {
        if case .null = decoder.value { return true }
        return false
    }

    func decode(_ type: Bool.Type) throws -> Bool { try decoder.unboxBool(decoder.value, key: nil) }
    func decode(_ type: String.Type) throws -> String { try decoder.unboxString(decoder.value, key: nil) }
    func decode(_ type: Double.Type) throws -> Double { try decoder.unboxDouble(decoder.value, key: nil) }
    func decode(_ type: Float.Type) throws -> Float { try decoder.unboxFloat(decoder.value, key: nil) }
    func decode(_ type: Int.Type) throws -> Int { try integer() }
    func decode(_ type: Int8.Type) throws -> Int8 { try integer() }
    func decode(_ type: Int16.Type) throws -> Int16 { try integer() }
    func decode(_ type: Int32.Type) throws -> Int32 { try integer() }
    func decode(_ type: Int64.Type) throws -> Int64 { try integer() }
    func decode(_ type: UInt.Type) throws -> UInt { try integer() }
    func decode(_ type: UInt8.Type) throws -> UInt8 { try integer() }
    func decode(_ type: UInt16.Type) throws -> UInt16 { try integer() }
    func decode(_ type: UInt32.Type) throws -> UInt32 { try integer() }
    func decode(_ type: UInt64.Type) throws -> UInt64 { try integer() }
    @available(macOS 15.0, *)
    func decode(_ type: Int128.Type) throws -> Int128 { try integer() }
    @available(macOS 15.0, *)
    func decode(_ type: UInt128.Type) throws -> UInt128 { try integer() }

    private func integer<I: FixedWidthInteger>() throws -> I {
        try decoder.unboxInteger(decoder.value, as: I.self, key: nil)
    }

    func decode<T: Decodable>(_ type: T.Type) throws -> T {
        try decoder.decodeOwnValue(as: T.self)
    }
}

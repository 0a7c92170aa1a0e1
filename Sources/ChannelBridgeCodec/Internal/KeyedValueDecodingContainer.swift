/// The keyed container of `ValueDecoder`: a map read by its string keys.
struct KeyedValueDecodingContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let decoder: ValueDecoder
    private let entries: [StandardValue.MapEntry]
    /// Position of each string key's last entry, for maps too large to search each time. Keys
    /// are told apart by code units, as `StandardValue` compares them.
    private let index: [CodeUnitString: Int]?

    init(decoder: ValueDecoder, entries: [StandardValue.MapEntry]) {
        self.decoder = decoder
        self.entries = entries
        if entries.count > 12 {
            var index: [CodeUnitString: Int] = [:]
            index.reserveCapacity(entries.count)
            for (position, entry) in entries.enumerated() {
                if case .string(let key) = entry.key { index[CodeUnitString(key)] = position }
            }
            self.index = index
        } else {
            self.index = nil
        }
    }

    var codingPath: [any CodingKey] { decoder.codingPath }

    /// The string keys that name a `Key`, each once, in map order.
    var allKeys: [Key] {
        var seen = Set<CodeUnitString>()
        return entries.compactMap { entry in
            guard case .string(let name) = entry.key, seen.insert(CodeUnitString(name)).inserted else { return nil }
            return Key(stringValue: name)
        }
    }

    /// The value under `key`; the last one when the map repeats the key, as Dart reads it.
    private func lookup(_ key: String) -> StandardValue? {
        if let index { return index[CodeUnitString(key)].map { entries[$0].value } }
        for entry in entries.reversed() {
            if case .string(let name) = entry.key, CodeUnitString.equal(name, key) { return entry.value }
        }
        return nil
    }

    private func value(for key: Key) throws -> StandardValue {
        guard let value = lookup(key.stringValue) else {
            throw DecodingError.keyNotFound(
                key, DecodingError.Context(codingPath: codingPath, debugDescription: "missing"))
        }
        return value
    }

    func contains(_ key: Key) -> Bool { lookup(key.stringValue) != nil }

    func decodeNil(forKey key: Key) throws -> Bool {
        if case .null = try value(for: key) { return true }
        return false
    }

    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool {
        try decoder.unboxBool(try value(for: key), key: key)
    }
    func decode(_ type: String.Type, forKey key: Key) throws -> String {
        try decoder.unboxString(try value(for: key), key: key)
    }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double {
        try decoder.unboxDouble(try value(for: key), key: key)
    }
    func decode(_ type: Float.Type, forKey key: Key) throws -> Float {
        try decoder.unboxFloat(try value(for: key), key: key)
    }
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

    func nestedContainer<NestedKey: CodingKey>(
        keyedBy type: NestedKey.Type,
        forKey key: Key
    ) throws -> KeyedDecodingContainer<NestedKey> {
        try ValueDecoder(value: try value(for: key), userInfo: decoder.userInfo, parent: decoder, key: key)
            .container(keyedBy: NestedKey.self)
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        try ValueDecoder(value: try value(for: key), userInfo: decoder.userInfo, parent: decoder, key: key)
            .unkeyedContainer()
    }

    /// The value under `super`, or null when there is none (as `JSONDecoder` does).
    func superDecoder() throws -> any Decoder {
        ValueDecoder(
            value: lookup("super") ?? .null, userInfo: decoder.userInfo, parent: decoder, key: StandardCodingKey.super)
    }

    func superDecoder(forKey key: Key) throws -> any Decoder {
        ValueDecoder(value: lookup(key.stringValue) ?? .null, userInfo: decoder.userInfo, parent: decoder, key: key)
    }
}

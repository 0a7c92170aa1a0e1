// The three container kinds of ValueEncoder. Integers go through `.int` (int32 when the value fits,
// int64 otherwise) whatever their Swift width, as Dart writes its one `int` type.

struct KeyedValueEncodingContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let encoder: ValueEncoder

    var codingPath: [any CodingKey] { encoder.codingPath }

    mutating func encodeNil(forKey key: Key) throws { encoder.set(key.stringValue, .null) }
    mutating func encode(_ value: Bool, forKey key: Key) throws { encoder.set(key.stringValue, .bool(value)) }
    mutating func encode(_ value: String, forKey key: Key) throws { encoder.set(key.stringValue, .string(value)) }
    mutating func encode(_ value: Double, forKey key: Key) throws { encoder.set(key.stringValue, .float64(value)) }
    mutating func encode(_ value: Float, forKey key: Key) throws { encoder.set(key.stringValue, .float64(Double(value))) }
    mutating func encode(_ value: Int, forKey key: Key) throws { encoder.set(key.stringValue, .int(value)) }
    mutating func encode(_ value: Int8, forKey key: Key) throws { encoder.set(key.stringValue, .int32(Int32(value))) }
    mutating func encode(_ value: Int16, forKey key: Key) throws { encoder.set(key.stringValue, .int32(Int32(value))) }
    mutating func encode(_ value: Int32, forKey key: Key) throws { encoder.set(key.stringValue, .int32(value)) }
    mutating func encode(_ value: Int64, forKey key: Key) throws { encoder.set(key.stringValue, .int(value)) }
    mutating func encode(_ value: UInt, forKey key: Key) throws { encoder.set(key.stringValue, try encoder.wide(value, key: key)) }
    mutating func encode(_ value: UInt8, forKey key: Key) throws { encoder.set(key.stringValue, .int32(Int32(value))) }
    mutating func encode(_ value: UInt16, forKey key: Key) throws { encoder.set(key.stringValue, .int32(Int32(value))) }
    mutating func encode(_ value: UInt32, forKey key: Key) throws { encoder.set(key.stringValue, .int(value)) }
    mutating func encode(_ value: UInt64, forKey key: Key) throws { encoder.set(key.stringValue, try encoder.wide(value, key: key)) }
    @available(macOS 15.0, *)
    mutating func encode(_ value: Int128, forKey key: Key) throws { encoder.set(key.stringValue, try encoder.wide(value, key: key)) }
    @available(macOS 15.0, *)
    mutating func encode(_ value: UInt128, forKey key: Key) throws { encoder.set(key.stringValue, try encoder.wide(value, key: key)) }

    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        encoder.set(key.stringValue, try encoder.box(value, key: key))
    }

    // `nil` is written as null under its key rather than left out (the default), so the map has
    // the same keys whatever the values: Dart code that checks `containsKey`, or a handler that
    // requires `"value": null` to mean "remove", reads it as the Swift side meant it.
    mutating func encodeIfPresent(_ value: Bool?, forKey key: Key) throws { encoder.set(key.stringValue, value.map { .bool($0) } ?? .null) }
    mutating func encodeIfPresent(_ value: String?, forKey key: Key) throws { encoder.set(key.stringValue, value.map { .string($0) } ?? .null) }
    mutating func encodeIfPresent(_ value: Double?, forKey key: Key) throws { encoder.set(key.stringValue, value.map { .float64($0) } ?? .null) }
    mutating func encodeIfPresent(_ value: Float?, forKey key: Key) throws {
        encoder.set(key.stringValue, value.map { .float64(Double($0)) } ?? .null)
    }
    mutating func encodeIfPresent(_ value: Int?, forKey key: Key) throws { encoder.set(key.stringValue, value.map { .int($0) } ?? .null) }
    mutating func encodeIfPresent(_ value: Int8?, forKey key: Key) throws { encoder.set(key.stringValue, value.map { .int($0) } ?? .null) }
    mutating func encodeIfPresent(_ value: Int16?, forKey key: Key) throws { encoder.set(key.stringValue, value.map { .int($0) } ?? .null) }
    mutating func encodeIfPresent(_ value: Int32?, forKey key: Key) throws { encoder.set(key.stringValue, value.map { .int32($0) } ?? .null) }
    mutating func encodeIfPresent(_ value: Int64?, forKey key: Key) throws { encoder.set(key.stringValue, value.map { .int($0) } ?? .null) }
    mutating func encodeIfPresent(_ value: UInt?, forKey key: Key) throws {
        encoder.set(key.stringValue, try value.map { try encoder.wide($0, key: key) } ?? .null)
    }
    mutating func encodeIfPresent(_ value: UInt8?, forKey key: Key) throws { encoder.set(key.stringValue, value.map { .int($0) } ?? .null) }
    mutating func encodeIfPresent(_ value: UInt16?, forKey key: Key) throws { encoder.set(key.stringValue, value.map { .int($0) } ?? .null) }
    mutating func encodeIfPresent(_ value: UInt32?, forKey key: Key) throws { encoder.set(key.stringValue, value.map { .int($0) } ?? .null) }
    mutating func encodeIfPresent(_ value: UInt64?, forKey key: Key) throws {
        encoder.set(key.stringValue, try value.map { try encoder.wide($0, key: key) } ?? .null)
    }
    @available(macOS 15.0, *)
    mutating func encodeIfPresent(_ value: Int128?, forKey key: Key) throws {
        encoder.set(key.stringValue, try value.map { try encoder.wide($0, key: key) } ?? .null)
    }
    @available(macOS 15.0, *)
    mutating func encodeIfPresent(_ value: UInt128?, forKey key: Key) throws {
        encoder.set(key.stringValue, try value.map { try encoder.wide($0, key: key) } ?? .null)
    }
    mutating func encodeIfPresent<T: Encodable>(_ value: T?, forKey key: Key) throws {
        encoder.set(key.stringValue, try value.map { try encoder.box($0, key: key) } ?? .null)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type,
                                                        forKey key: Key) -> KeyedEncodingContainer<NestedKey> {
        let nested = encoder.nested(key: key)
        encoder.setPending(key.stringValue, nested)
        return nested.container(keyedBy: NestedKey.self)
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        let nested = encoder.nested(key: key)
        encoder.setPending(key.stringValue, nested)
        return nested.unkeyedContainer()
    }

    mutating func superEncoder() -> any Encoder {
        let nested = encoder.nested(key: StandardCodingKey.super)
        encoder.setPending(StandardCodingKey.super.stringValue, nested)
        return nested
    }

    mutating func superEncoder(forKey key: Key) -> any Encoder {
        let nested = encoder.nested(key: key)
        encoder.setPending(key.stringValue, nested)
        return nested
    }
}

struct UnkeyedValueEncodingContainer: UnkeyedEncodingContainer {
    let encoder: ValueEncoder

    var codingPath: [any CodingKey] { encoder.codingPath }
    var count: Int { encoder.elementCount }

    private var nextKey: StandardCodingKey { StandardCodingKey(intValue: encoder.elementCount) }

    mutating func encodeNil() throws { encoder.append(.null) }
    mutating func encode(_ value: Bool) throws { encoder.append(.bool(value)) }
    mutating func encode(_ value: String) throws { encoder.append(.string(value)) }
    mutating func encode(_ value: Double) throws { encoder.append(.float64(value)) }
    mutating func encode(_ value: Float) throws { encoder.append(.float64(Double(value))) }
    mutating func encode(_ value: Int) throws { encoder.append(.int(value)) }
    mutating func encode(_ value: Int8) throws { encoder.append(.int32(Int32(value))) }
    mutating func encode(_ value: Int16) throws { encoder.append(.int32(Int32(value))) }
    mutating func encode(_ value: Int32) throws { encoder.append(.int32(value)) }
    mutating func encode(_ value: Int64) throws { encoder.append(.int(value)) }
    mutating func encode(_ value: UInt) throws { encoder.append(try encoder.wide(value, key: nextKey)) }
    mutating func encode(_ value: UInt8) throws { encoder.append(.int32(Int32(value))) }
    mutating func encode(_ value: UInt16) throws { encoder.append(.int32(Int32(value))) }
    mutating func encode(_ value: UInt32) throws { encoder.append(.int(value)) }
    mutating func encode(_ value: UInt64) throws { encoder.append(try encoder.wide(value, key: nextKey)) }
    @available(macOS 15.0, *)
    mutating func encode(_ value: Int128) throws { encoder.append(try encoder.wide(value, key: nextKey)) }
    @available(macOS 15.0, *)
    mutating func encode(_ value: UInt128) throws { encoder.append(try encoder.wide(value, key: nextKey)) }

    mutating func encode<T: Encodable>(_ value: T) throws {
        encoder.append(try encoder.box(value, key: nextKey))
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
        let nested = encoder.nested(key: nextKey)
        encoder.appendPending(nested)
        return nested.container(keyedBy: NestedKey.self)
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        let nested = encoder.nested(key: nextKey)
        encoder.appendPending(nested)
        return nested.unkeyedContainer()
    }

    mutating func superEncoder() -> any Encoder {
        let nested = encoder.nested(key: nextKey)
        encoder.appendPending(nested)
        return nested
    }
}

struct SingleValueValueEncodingContainer: SingleValueEncodingContainer {
    let encoder: ValueEncoder

    var codingPath: [any CodingKey] { encoder.codingPath }

    mutating func encodeNil() throws { encoder.setSingleValue(.null) }
    mutating func encode(_ value: Bool) throws { encoder.setSingleValue(.bool(value)) }
    mutating func encode(_ value: String) throws { encoder.setSingleValue(.string(value)) }
    mutating func encode(_ value: Double) throws { encoder.setSingleValue(.float64(value)) }
    mutating func encode(_ value: Float) throws { encoder.setSingleValue(.float64(Double(value))) }
    mutating func encode(_ value: Int) throws { encoder.setSingleValue(.int(value)) }
    mutating func encode(_ value: Int8) throws { encoder.setSingleValue(.int32(Int32(value))) }
    mutating func encode(_ value: Int16) throws { encoder.setSingleValue(.int32(Int32(value))) }
    mutating func encode(_ value: Int32) throws { encoder.setSingleValue(.int32(value)) }
    mutating func encode(_ value: Int64) throws { encoder.setSingleValue(.int(value)) }
    mutating func encode(_ value: UInt) throws { encoder.setSingleValue(try encoder.wide(value, key: nil)) }
    mutating func encode(_ value: UInt8) throws { encoder.setSingleValue(.int32(Int32(value))) }
    mutating func encode(_ value: UInt16) throws { encoder.setSingleValue(.int32(Int32(value))) }
    mutating func encode(_ value: UInt32) throws { encoder.setSingleValue(.int(value)) }
    mutating func encode(_ value: UInt64) throws { encoder.setSingleValue(try encoder.wide(value, key: nil)) }
    @available(macOS 15.0, *)
    mutating func encode(_ value: Int128) throws { encoder.setSingleValue(try encoder.wide(value, key: nil)) }
    @available(macOS 15.0, *)
    mutating func encode(_ value: UInt128) throws { encoder.setSingleValue(try encoder.wide(value, key: nil)) }

    mutating func encode<T: Encodable>(_ value: T) throws {
        encoder.setSingleValue(try encoder.box(value, key: nil))
    }
}

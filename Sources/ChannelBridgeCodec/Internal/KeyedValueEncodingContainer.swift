/// The keyed container of `ValueEncoder`: a map whose string keys are in the order first encoded.
/// Integers go through `.int` (int32 when the value fits, int64 otherwise) whatever their Swift
/// width, as Dart writes its one `int` type.
struct KeyedValueEncodingContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let encoder: ValueEncoder

    var codingPath: [any CodingKey] { encoder.codingPath }

    mutating func encodeNil(forKey key: Key) throws { encoder.set(key.stringValue, .null) }
    mutating func encode(_ value: Bool, forKey key: Key) throws { encoder.set(key.stringValue, .bool(value)) }
    mutating func encode(_ value: String, forKey key: Key) throws { encoder.set(key.stringValue, .string(value)) }
    mutating func encode(_ value: Double, forKey key: Key) throws { encoder.set(key.stringValue, .float64(value)) }
    mutating func encode(_ value: Float, forKey key: Key) throws {
        encoder.set(key.stringValue, .float64(Double(value)))
    }
    mutating func encode(_ value: Int, forKey key: Key) throws { encoder.set(key.stringValue, .int(value)) }
    mutating func encode(_ value: Int8, forKey key: Key) throws { encoder.set(key.stringValue, .int32(Int32(value))) }
    mutating func encode(_ value: Int16, forKey key: Key) throws { encoder.set(key.stringValue, .int32(Int32(value))) }
    mutating func encode(_ value: Int32, forKey key: Key) throws { encoder.set(key.stringValue, .int32(value)) }
    mutating func encode(_ value: Int64, forKey key: Key) throws { encoder.set(key.stringValue, .int(value)) }
    mutating func encode(_ value: UInt, forKey key: Key) throws {
        encoder.set(key.stringValue, try encoder.wide(value, key: key))
    }
    mutating func encode(_ value: UInt8, forKey key: Key) throws { encoder.set(key.stringValue, .int32(Int32(value))) }
    mutating func encode(_ value: UInt16, forKey key: Key) throws { encoder.set(key.stringValue, .int32(Int32(value))) }
    mutating func encode(_ value: UInt32, forKey key: Key) throws { encoder.set(key.stringValue, .int(value)) }
    mutating func encode(_ value: UInt64, forKey key: Key) throws {
        encoder.set(key.stringValue, try encoder.wide(value, key: key))
    }
    @available(macOS 15.0, *)
    mutating func encode(_ value: Int128, forKey key: Key) throws {
        encoder.set(key.stringValue, try encoder.wide(value, key: key))
    }
    @available(macOS 15.0, *)
    mutating func encode(_ value: UInt128, forKey key: Key) throws {
        encoder.set(key.stringValue, try encoder.wide(value, key: key))
    }

    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        encoder.set(key.stringValue, try encoder.box(value, key: key))
    }

    // `nil` is written as null under its key rather than left out (the default), so the map has
    // the same keys whatever the values: Dart code that checks `containsKey`, or a handler that
    // requires `"value": null` to mean "remove", reads it as the Swift side meant it.
    mutating func encodeIfPresent(_ value: Bool?, forKey key: Key) throws {
        encoder.set(key.stringValue, value.map { .bool($0) } ?? .null)
    }
    mutating func encodeIfPresent(_ value: String?, forKey key: Key) throws {
        encoder.set(key.stringValue, value.map { .string($0) } ?? .null)
    }
    mutating func encodeIfPresent(_ value: Double?, forKey key: Key) throws {
        encoder.set(key.stringValue, value.map { .float64($0) } ?? .null)
    }
    mutating func encodeIfPresent(_ value: Float?, forKey key: Key) throws {
        encoder.set(key.stringValue, value.map { .float64(Double($0)) } ?? .null)
    }
    mutating func encodeIfPresent(_ value: Int?, forKey key: Key) throws {
        encoder.set(key.stringValue, value.map { .int($0) } ?? .null)
    }
    mutating func encodeIfPresent(_ value: Int8?, forKey key: Key) throws {
        encoder.set(key.stringValue, value.map { .int($0) } ?? .null)
    }
    mutating func encodeIfPresent(_ value: Int16?, forKey key: Key) throws {
        encoder.set(key.stringValue, value.map { .int($0) } ?? .null)
    }
    mutating func encodeIfPresent(_ value: Int32?, forKey key: Key) throws {
        encoder.set(key.stringValue, value.map { .int32($0) } ?? .null)
    }
    mutating func encodeIfPresent(_ value: Int64?, forKey key: Key) throws {
        encoder.set(key.stringValue, value.map { .int($0) } ?? .null)
    }
    mutating func encodeIfPresent(_ value: UInt?, forKey key: Key) throws {
        encoder.set(key.stringValue, try value.map { try encoder.wide($0, key: key) } ?? .null)
    }
    mutating func encodeIfPresent(_ value: UInt8?, forKey key: Key) throws {
        encoder.set(key.stringValue, value.map { .int($0) } ?? .null)
    }
    mutating func encodeIfPresent(_ value: UInt16?, forKey key: Key) throws {
        encoder.set(key.stringValue, value.map { .int($0) } ?? .null)
    }
    mutating func encodeIfPresent(_ value: UInt32?, forKey key: Key) throws {
        encoder.set(key.stringValue, value.map { .int($0) } ?? .null)
    }
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

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy keyType: NestedKey.Type,
        forKey key: Key
    ) -> KeyedEncodingContainer<NestedKey> {
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

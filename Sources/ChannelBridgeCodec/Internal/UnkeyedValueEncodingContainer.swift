/// The unkeyed container of `ValueEncoder`: a list.
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

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy keyType: NestedKey.Type
    ) -> KeyedEncodingContainer<NestedKey> {
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

/// The single value container of `ValueEncoder`.
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

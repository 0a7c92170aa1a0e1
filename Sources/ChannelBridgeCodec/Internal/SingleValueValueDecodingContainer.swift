/// The single value container of `ValueDecoder`.
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

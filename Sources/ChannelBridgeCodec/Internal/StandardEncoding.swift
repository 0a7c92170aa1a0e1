/// The facts of the Standard encoding (Protocol/codec.md §2): its type bytes, the three forms of a
/// size, the padding that aligns a value, and what each typed list holds. `StandardReader` and
/// `StandardWriter` read and write with these, and so do the `Flutter` module's
/// `FlutterStandardReader` and `FlutterStandardWriter`: the encoding is stated once.
package enum StandardEncoding {
    // The type bytes (§2.1).
    package static let null: UInt8 = 0
    package static let `true`: UInt8 = 1
    package static let `false`: UInt8 = 2
    package static let int32: UInt8 = 3
    package static let int64: UInt8 = 4
    /// The legacy "large integer": laid out as a string and read as one; never written.
    package static let largeInteger: UInt8 = 5
    package static let float64: UInt8 = 6
    package static let string: UInt8 = 7
    package static let uint8List: UInt8 = 8
    package static let int32List: UInt8 = 9
    package static let int64List: UInt8 = 10
    package static let float64List: UInt8 = 11
    package static let list: UInt8 = 12
    package static let map: UInt8 = 13
    package static let float32List: UInt8 = 14
    /// The last type byte of a standard value; above it a reader hands the value to a codec
    /// extension (or a Flutter reader subclass), or refuses it.
    package static let lastStandardType: UInt8 = 14

    /// The bytes per element of a typed list's type byte (also the alignment of its elements), and
    /// the list's name in errors; `nil` for any other type byte.
    @inline(__always)
    package static func typedList(_ type: UInt8) -> (elementSize: Int, name: String)? {
        switch type {
        case uint8List: (1, "Uint8List")
        case int32List: (4, "Int32List")
        case int64List: (8, "Int64List")
        case float64List: (8, "Float64List")
        case float32List: (4, "Float32List")
        default: nil
        }
    }

    /// How many bytes `storeSize` writes for `size` (§2.2): 1, 3 or 5.
    @inline(__always)
    package static func sizeLength(_ size: Int) -> Int { size < 254 ? 1 : size <= 0xFFFF ? 3 : 5 }

    /// Stores `size` at `target` in its shortest form (§2.2): one byte below 254, else 254 and two
    /// bytes up to 0xFFFF, else 255 and four bytes; returns how many bytes it stored.
    @inline(__always)
    package static func storeSize(_ size: Int, at target: UnsafeMutableRawPointer) -> Int {
        if size < 254 {
            target.storeBytes(of: UInt8(truncatingIfNeeded: size), as: UInt8.self)
            return 1
        } else if size <= 0xFFFF {
            target.storeBytes(of: 254, as: UInt8.self)
            target.storeBytes(of: UInt16(truncatingIfNeeded: size).littleEndian, toByteOffset: 1, as: UInt16.self)
            return 3
        } else {
            target.storeBytes(of: 255, as: UInt8.self)
            target.storeBytes(of: UInt32(truncatingIfNeeded: size).littleEndian, toByteOffset: 1, as: UInt32.self)
            return 5
        }
    }

    /// The padding bytes that bring `offset`, counted from the first byte of the whole message, to
    /// a multiple of `alignment` (§2.3).
    @inline(__always)
    package static func padding(at offset: Int, alignment: Int) -> Int {
        let remainder = offset % alignment
        return remainder == 0 ? 0 : alignment - remainder
    }
}

/// Appends Standard-codec bytes to one growing buffer.
///
/// Codec extensions receive a writer to write their custom values: the tag byte, then any payload,
/// using `writeValue` for nested Standard values. Alignment is counted from the first byte of the
/// whole message, which is this buffer's first byte.
public struct StandardWriter {
    public private(set) var bytes: [UInt8]
    let codecExtension: (any StandardCodecExtension)?

    public init(reservingCapacity capacity: Int = 64, extension codecExtension: (any StandardCodecExtension)? = nil) {
        bytes = []
        bytes.reserveCapacity(capacity)
        self.codecExtension = codecExtension
    }

    public mutating func writeByte(_ byte: UInt8) {
        bytes.append(byte)
    }

    public mutating func writeBytes(_ other: some Collection<UInt8>) {
        bytes.append(contentsOf: other)
    }

    public mutating func writeInt32(_ value: Int32) {
        withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
    }

    public mutating func writeInt64(_ value: Int64) {
        withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
    }

    public mutating func writeUInt16(_ value: UInt16) {
        withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
    }

    public mutating func writeUInt32(_ value: UInt32) {
        withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
    }

    /// Writes the IEEE-754 bits as they are (NaN payloads and signs survive), without alignment.
    public mutating func writeFloat64(_ value: Double) {
        writeInt64(Int64(bitPattern: value.bitPattern))
    }

    /// Writes a size in the shortest of the three forms: 1, 3 or 5 bytes.
    public mutating func writeSize(_ size: Int) {
        if size < 254 {
            bytes.append(UInt8(truncatingIfNeeded: size))
        } else if size <= 0xFFFF {
            bytes.append(254)
            writeUInt16(UInt16(truncatingIfNeeded: size))
        } else {
            bytes.append(255)
            writeUInt32(UInt32(truncatingIfNeeded: size))
        }
    }

    /// Pads with zero bytes until the message length is a multiple of `alignment`.
    public mutating func writeAlignment(_ alignment: Int) {
        let remainder = bytes.count % alignment
        if remainder != 0 {
            bytes.append(contentsOf: repeatElement(0, count: alignment - remainder))
        }
    }

    /// Writes any value, handing custom values to the codec extension.
    public mutating func writeValue(_ value: StandardValue) throws(CodecError) {
        switch value {
        case .null: bytes.append(0)
        case .bool(let flag): bytes.append(flag ? 1 : 2)
        case .int32(let v):
            bytes.append(3)
            writeInt32(v)
        case .int64(let v):
            bytes.append(4)
            writeInt64(v)
        case .float64(let v):
            bytes.append(6)
            writeAlignment(8)
            writeFloat64(v)
        case .string(let s):
            bytes.append(7)
            var s = s
            s.withUTF8 { utf8 in
                writeSize(utf8.count)
                bytes.append(contentsOf: utf8)
            }
        case .uint8List(let v):
            bytes.append(8)
            writeSize(v.count)
            bytes.append(contentsOf: v)
        case .int32List(let v):
            writeTypedList(tag: 9, v, alignment: 4)
        case .int64List(let v):
            writeTypedList(tag: 10, v, alignment: 8)
        case .float64List(let v):
            writeTypedList(tag: 11, v, alignment: 8)
        case .float32List(let v):
            writeTypedList(tag: 14, v, alignment: 4)
        case .list(let elements):
            bytes.append(12)
            writeSize(elements.count)
            for element in elements { try writeValue(element) }
        case .map(let entries):
            bytes.append(13)
            writeSize(entries.count)
            for entry in entries {
                try writeValue(entry.key)
                try writeValue(entry.value)
            }
        case .custom(let custom):
            try writeCustom(custom)
        }
    }

    // Typed lists are always padded, even when empty: every Flutter reader aligns before reading
    // the elements, so the unpadded form (Flutter's C++ writer) does not read back.
    mutating func writeTypedList<T>(tag: UInt8, _ elements: [T], alignment: Int) {
        bytes.append(tag)
        writeSize(elements.count)
        writeAlignment(alignment)
        // Element types are little-endian on every platform this package builds for.
        elements.withUnsafeBytes { bytes.append(contentsOf: $0) }
    }

    private mutating func writeCustom(_ custom: CustomValue) throws(CodecError) {
        if let raw = custom.as(RawCustomValue.self) {
            bytes.append(raw.customTag)
            bytes.append(contentsOf: raw.payload)
            return
        }
        if let codecExtension, try codecExtension.writeValue(custom, to: &self) {
            return
        }
        throw CodecError(.unencodable,
                         "no codec extension writes custom type \(type(of: custom.base)) (tag \(custom.tag))")
    }
}

import ChannelBridgeCodec
public import Foundation

/// Writes Flutter's Standard encoding into an `NSMutableData` (Flutter's `FlutterStandardWriter`).
///
/// Subclass it and override `writeValue(_:)` to add custom types, as Pigeon's generated code
/// does: write a type byte of 128 or more and the payload, and hand everything else to
/// `super.writeValue(_:)`. Inside lists and maps the standard types are written directly and
/// any other value is handed to `writeValue(_:)` again, so a subclass sees every custom value at
/// any depth (as in Flutter's iOS writer).
///
/// ```swift
/// final class PointWriter: FlutterStandardWriter {
///     override func writeValue(_ value: Any) {
///         if let point = value as? Point {
///             writeByte(128)
///             super.writeValue([point.x, point.y])
///         } else {
///             super.writeValue(value)
///         }
///     }
/// }
/// ```
///
/// Which type byte a value gets (as on iOS): `nil` and `NSNull` null; `Bool` and a boolean
/// `NSNumber` true/false; `Int`, `Int64`, `UInt32` and 8-byte `NSNumber`s int64; `Int32`, `Int16`,
/// `Int8`, `UInt8`, `UInt16` and 4-byte `NSNumber`s int32; `Double`, `Float`, `CGFloat` float64;
/// `String` string; `FlutterStandardTypedData` its typed list; `Data` Uint8List; any array list;
/// any dictionary map, in its iteration order. A value of any other type is logged as unsupported
/// and written as nothing, as Flutter's iOS release builds do; the channels of this module check
/// for it and answer with an error instead of sending the broken bytes.
open class FlutterStandardWriter: NSObject {
    private let data: NSMutableData
    /// The first value this writer could not write.
    private(set) var failure: CodecError?

    public init(data: NSMutableData) {
        self.data = data
        super.init()
    }

    open func writeByte(_ value: UInt8) {
        var byte = value
        data.append(&byte, length: 1)
    }

    open func writeBytes(_ bytes: UnsafeRawPointer, length: Int) {
        data.append(bytes, length: length)
    }

    open func writeData(_ data: Data) {
        self.data.append(data)
    }

    /// Writes a size in the shortest of its forms: one byte below 254, else 254 and two bytes up
    /// to 0xFFFF, else 255 and four bytes.
    open func writeSize(_ size: UInt32) {
        withUnsafeTemporaryAllocation(byteCount: 5, alignment: 1) { buffer in
            let length = StandardEncoding.storeSize(Int(size), at: buffer.baseAddress!)
            writeBytes(buffer.baseAddress!, length: length)
        }
    }

    /// Pads with zero bytes until the data's length is a multiple of `alignment`.
    open func writeAlignment(_ alignment: UInt8) {
        guard alignment > 1 else { return }
        for _ in 0..<StandardEncoding.padding(at: data.length, alignment: Int(alignment)) { writeByte(0) }
    }

    /// Writes the UTF-8 byte count as a size, then the bytes.
    open func writeUTF8(_ value: String) {
        var string = value
        string.withUTF8 { utf8 in
            writeSize(UInt32(truncatingIfNeeded: utf8.count))
            if let base = utf8.baseAddress { writeBytes(base, length: utf8.count) }
        }
    }

    /// Writes `value` with its type byte. Override to add custom types (see the type's
    /// documentation); call `super` for everything else.
    open func writeValue(_ value: Any) {
        write(FlutterValues.kind(of: value), value)
    }

    /// Inside containers: standard values directly, anything else through `writeValue(_:)`, which
    /// a subclass may override.
    private func writeElement(_ element: Any) {
        guard let value = FlutterValues.unwrap(element) else {
            writeByte(0)
            return
        }
        let kind = FlutterValues.kind(of: value)
        if case .unknown = kind {
            writeValue(value)
        } else {
            write(kind, value)
        }
    }

    private func write(_ kind: FlutterValues.Kind, _ value: Any) {
        switch kind {
        case .null:
            writeByte(StandardEncoding.null)
        case .bool(let flag):
            writeByte(flag ? StandardEncoding.true : StandardEncoding.false)
        case .int32(let number):
            writeByte(StandardEncoding.int32)
            appendLittleEndian(number)
        case .int64(let number):
            writeByte(StandardEncoding.int64)
            appendLittleEndian(number)
        case .float64(let number):
            writeByte(StandardEncoding.float64)
            writeAlignment(8)
            appendLittleEndian(number.bitPattern)
        case .string(let string):
            writeByte(StandardEncoding.string)
            writeUTF8(string)
        case .typedData(let typed):
            writeTypedData(typed)
        case .bytes(let bytes):
            writeTypedData(FlutterStandardTypedData(bytes: bytes))
        case .list(let elements):
            writeByte(StandardEncoding.list)
            writeSize(UInt32(truncatingIfNeeded: elements.count))
            for element in elements { writeElement(element) }
        case .map(let entries):
            writeByte(StandardEncoding.map)
            writeSize(UInt32(truncatingIfNeeded: entries.count))
            for (key, entry) in entries {
                writeElement(key.base)
                writeElement(entry)
            }
        case .unsupportedNumber(let text):
            unsupported("Unsupported value: \(text) of number type \(Swift.type(of: value))")
        case .unknown:
            unsupported("Unsupported value: \(value) of type \(Swift.type(of: value))")
        }
    }

    private func writeTypedData(_ typed: FlutterStandardTypedData) {
        writeByte(typed.type.field)
        writeSize(typed.elementCount)
        writeAlignment(typed.elementSize)
        if typed.isWhole {
            writeData(typed.data)
        } else {
            writeData(typed.data.prefix(Int(typed.elementCount) * Int(typed.elementSize)))
            unsupported(
                "FlutterStandardTypedData of \(typed.data.count) bytes is not a whole number of "
                    + "\(typed.elementSize)-byte elements")
        }
    }

    private func unsupported(_ message: String) {
        FlutterLog.error(message)
        if failure == nil { failure = CodecError(.unencodable, message, offset: data.length) }
    }

    private func appendLittleEndian<T: FixedWidthInteger>(_ value: T) {
        withUnsafeBytes(of: value.littleEndian) { writeBytes($0.baseAddress!, length: $0.count) }
    }
}

import ChannelBridgeCodec
public import Foundation

/// Reads Flutter's Standard encoding (Flutter's `FlutterStandardReader`).
///
/// Subclass it and override `readValue(ofType:)` to add custom types, as Pigeon's generated code
/// does: handle type bytes of 128 or more, reading their payload with `readValue()` and the other
/// primitives, and hand every other type to `super.readValue(ofType:)`. Inside lists and maps the
/// standard types are read directly and any other type byte goes to `readValue(ofType:)` again,
/// as in Flutter's iOS reader.
///
/// ```swift
/// final class PointReader: FlutterStandardReader {
///     override func readValue(ofType type: UInt8) -> Any? {
///         guard type == 128, let xy = readValue() as? [Any?] else { return super.readValue(ofType: type) }
///         return Point(x: xy[0] as! Int64, y: xy[1] as! Int64)
///     }
/// }
/// ```
///
/// Values come out as the iOS reader gives them, except for null inside containers:
/// - null: `nil`; true/false: a boolean `NSNumber`; int32, int64, float64: `NSNumber` (which casts
///   to `Int`, `Int32`, `Int64` or `Double` as on iOS); String and the legacy type 5: `String`;
///   typed lists: `FlutterStandardTypedData`;
/// - a list: `[Any?]` and a map: `[AnyHashable: Any?]`, whose null elements, keys and values are
///   `nil` (a null key is `AnyHashable(Optional<AnyHashable>.none)`). iOS puts `NSNull` there and
///   its runtime turns NSNull into `nil` when an array is cast to `[String?]`; Linux has no such
///   bridging, so `nil` is stored instead and the same casts (`as! [String?: String?]`, on which
///   Pigeon's generated code relies) work. Test for `nil`, not for `NSNull`.
/// - a key that occurs twice keeps its first value, as on iOS.
///
/// The bytes come from another process, so nothing here traps: a read past the end, an unknown
/// type byte, invalid UTF-8, a count larger than the bytes left or nesting deeper than
/// `maximumDepth` makes every later read return zero or `nil`, and is reported by the codecs
/// (`checkedDecode`) and answered as malformed by the channels. The plain Flutter API
/// (`decode(_:)`) logs it and returns `nil`.
open class FlutterStandardReader: NSObject {
    /// How deep lists, maps and custom values may nest.
    public static let maximumDepth = 1_000
    /// How deep a list or map read as a map key may nest. Such a key is an NSArray or NSDictionary,
    /// as on iOS, and on Linux Foundation converts those to Swift collections, recursively, on
    /// every access (hashing, comparing, writing), so a deep one would cost the reading thread's
    /// whole stack; a peer's deeper key is refused with `nestingTooDeep` instead.
    public static let maximumKeyDepth = 64

    private let bytes: [UInt8]
    private var location = 0
    private var depth = 0
    /// `depth` where the outermost map key being read began, while one is being read.
    private var keyBaseDepth: Int?
    /// The first problem found in the bytes; reads after it return zero or `nil`.
    private(set) var failure: CodecError?

    public init(data: Data) {
        bytes = [UInt8](data)
        super.init()
    }

    open func hasMore() -> Bool {
        location < bytes.count
    }

    open func readByte() -> UInt8 {
        guard failure == nil else { return 0 }
        guard location < bytes.count else {
            fail(.truncated, "truncated value: needs 1 byte, 0 left")
            return 0
        }
        defer { location += 1 }
        return bytes[location]
    }

    /// Copies `length` bytes; past the end it copies zeros and reports truncation.
    open func readBytes(_ destination: UnsafeMutableRawPointer, length: Int) {
        guard failure == nil, take(length, "bytes") else {
            destination.initializeMemory(as: UInt8.self, repeating: 0, count: length)
            return
        }
        bytes.withUnsafeBytes { raw in
            destination.copyMemory(from: raw.baseAddress! + location - length, byteCount: length)
        }
    }

    open func readData(_ length: Int) -> Data {
        guard failure == nil, take(length, "bytes") else { return Data() }
        return Data(bytes[(location - length)..<location])
    }

    /// Reads a size in any of its three forms.
    open func readSize() -> UInt32 {
        let first = readByte()
        switch first {
        case 0..<254: return UInt32(first)
        case 254: return UInt32(readInteger(UInt16.self))
        default: return readInteger(UInt32.self)
        }
    }

    /// Skips padding up to the next multiple of `alignment`, whatever it holds.
    open func readAlignment(_ alignment: UInt8) {
        guard alignment > 1, failure == nil else { return }
        let remainder = location % Int(alignment)
        guard remainder != 0 else { return }
        _ = take(Int(alignment) - remainder, "alignment padding")
    }

    /// Reads a size and that many bytes of UTF-8.
    open func readUTF8() -> String {
        let start = location
        let count = Int(readSize())
        guard failure == nil else { return "" }
        guard count <= bytes.count - location else {
            fail(.sizeTooLarge, "string claims \(count) bytes but only \(bytes.count - location) are left", at: start)
            return ""
        }
        let utf8 = bytes[location..<(location + count)]
        guard let string = String(validating: utf8, as: UTF8.self) else {
            fail(.invalidUTF8, "string is not valid UTF-8", at: location)
            return ""
        }
        location += count
        return string
    }

    /// Reads a type byte and the value it introduces.
    open func readValue() -> Any? {
        let type = readByte()
        guard failure == nil else { return nil }
        if Self.isStandard(type) { return readValue(ofType: type) }
        // A custom value counts as a level of nesting, as its payload usually holds others.
        guard enter(at: location - 1) else { return nil }
        defer { depth -= 1 }
        return readValue(ofType: type)
    }

    /// Reads the value of a type byte just read. Override to add custom types (see the type's
    /// documentation); this implementation knows the standard ones (0 to 14) and reports any
    /// other as unknown.
    open func readValue(ofType type: UInt8) -> Any? {
        readStandardValue(ofType: type)
    }

    static func isStandard(_ type: UInt8) -> Bool { type <= 14 }

    /// Inside containers: standard types directly, any other through `readValue()`.
    private func readElement() -> Any? {
        guard failure == nil else { return nil }
        guard location < bytes.count else {
            fail(.truncated, "truncated value: needs 1 byte, 0 left")
            return nil
        }
        let type = bytes[location]
        guard Self.isStandard(type) else { return readValue() }
        location += 1
        return readStandardValue(ofType: type)
    }

    private func readStandardValue(ofType type: UInt8) -> Any? {
        guard failure == nil else { return nil }
        let start = location - 1
        switch type {
        case 0: return nil
        case 1: return NSNumber(value: true)
        case 2: return NSNumber(value: false)
        case 3: return NSNumber(value: Int32(bitPattern: readInteger(UInt32.self)))
        case 4: return NSNumber(value: Int64(bitPattern: readInteger(UInt64.self)))
        case 5, 7: return readUTF8()
        case 6:
            readAlignment(8)
            return NSNumber(value: Double(bitPattern: readInteger(UInt64.self)))
        case 8, 9, 10, 11, 14:
            return readTypedData(FlutterStandardDataType(field: type)!, at: start)
        case 12:
            let count = Int(readSize())
            guard failure == nil, check(count, elementSize: 1, "list", at: start), enter(at: start) else { return nil }
            defer { depth -= 1 }
            var list: [Any?] = []
            list.reserveCapacity(count)
            for _ in 0..<count {
                list.append(readElement())
                if failure != nil { return nil }
            }
            return list
        case 13:
            let count = Int(readSize())
            guard failure == nil, check(count, elementSize: 2, "map", at: start), enter(at: start) else { return nil }
            defer { depth -= 1 }
            var map: [AnyHashable: Any?] = [:]
            map.reserveCapacity(count)
            for _ in 0..<count {
                let outerKeyBase = keyBaseDepth
                if outerKeyBase == nil { keyBaseDepth = depth }
                let rawKey = readElement()
                keyBaseDepth = outerKeyBase
                if failure != nil { return nil }
                let key = FlutterValues.key(rawKey)
                let value = readElement()
                if failure != nil { return nil }
                // The first value of a repeated key stays, as CFDictionaryAddValue keeps it on iOS.
                if map.index(forKey: key) == nil { map[key] = .some(value) }
            }
            return map
        default:
            fail(.unknownType, "unknown type \(type)", at: start)
            return nil
        }
    }

    private func readTypedData(_ type: FlutterStandardDataType, at start: Int) -> FlutterStandardTypedData? {
        let count = Int(readSize())
        let size = Int(type.elementSize)
        guard failure == nil, check(count, elementSize: size, "typed list", at: start) else { return nil }
        readAlignment(type.elementSize)
        guard failure == nil, check(count, elementSize: size, "typed list", at: start) else { return nil }
        return FlutterStandardTypedData(data: readData(count * size), type: type)
    }

    private func readInteger<T: FixedWidthInteger>(_: T.Type) -> T {
        var value = T.zero
        withUnsafeMutableBytes(of: &value) { readBytes($0.baseAddress!, length: $0.count) }
        return T(littleEndian: value)
    }

    /// Moves past `count` bytes, or reports truncation.
    private func take(_ count: Int, _ what: String) -> Bool {
        guard count <= bytes.count - location else {
            fail(.truncated, "truncated \(what): needs \(count) bytes, \(bytes.count - location) left")
            return false
        }
        location += count
        return true
    }

    /// Refuses a count before anything is allocated for it.
    private func check(_ count: Int, elementSize: Int, _ what: String, at start: Int) -> Bool {
        guard count > (bytes.count - location) / elementSize else { return true }
        fail(
            .sizeTooLarge, "\(what) claims \(count) elements but only \(bytes.count - location) bytes are left",
            at: start)
        return false
    }

    private func enter(at start: Int) -> Bool {
        depth += 1
        if let keyBaseDepth, depth - keyBaseDepth > Self.maximumKeyDepth {
            depth -= 1
            fail(.nestingTooDeep, "a map key nests deeper than \(Self.maximumKeyDepth) levels", at: start)
            return false
        }
        guard depth > Self.maximumDepth else { return true }
        depth -= 1
        fail(.nestingTooDeep, "values nest deeper than \(Self.maximumDepth) levels", at: start)
        return false
    }

    /// Records the first problem; every later read returns zero or `nil`.
    func fail(_ code: CodecError.Code, _ message: String, at offset: Int? = nil) {
        guard failure == nil else { return }
        failure = CodecError(code, message, offset: offset ?? location)
        location = bytes.count
    }
}

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
        read(0) { (reader) throws(CodecError) in try reader.readByte() }
    }

    /// Copies `length` bytes; past the end it copies zeros and reports truncation.
    open func readBytes(_ destination: UnsafeMutableRawPointer, length: Int) {
        let copied = read(false) { (reader) throws(CodecError) in
            let span = try reader.readSpan(length)
            if let source = span.baseAddress { destination.copyMemory(from: source, byteCount: length) }
            return true
        }
        if !copied { destination.initializeMemory(as: UInt8.self, repeating: 0, count: length) }
    }

    open func readData(_ length: Int) -> Data {
        read(Data()) { (reader) throws(CodecError) in Data(try reader.readSpan(length)) }
    }

    /// Reads a size in any of its three forms.
    open func readSize() -> UInt32 {
        read(0) { (reader) throws(CodecError) in UInt32(try reader.readSize()) }
    }

    /// Skips padding up to the next multiple of `alignment`, whatever it holds.
    open func readAlignment(_ alignment: UInt8) {
        guard alignment > 1 else { return }
        read(()) { (reader) throws(CodecError) in try reader.readAlignment(Int(alignment)) }
    }

    /// Reads a size and that many bytes of UTF-8.
    open func readUTF8() -> String {
        read("") { (reader) throws(CodecError) in try reader.readString(at: reader.offset) }
    }

    /// Reads a type byte and the value it introduces.
    open func readValue() -> Any? {
        let type = readByte()
        guard failure == nil else { return nil }
        if type <= StandardEncoding.lastStandardType { return readValue(ofType: type) }
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

    /// Inside containers: standard types directly, any other through `readValue()`.
    private func readElement() -> Any? {
        guard let type = read(nil, { (reader) throws(CodecError) -> UInt8? in try reader.readByte() }) else {
            return nil
        }
        guard type <= StandardEncoding.lastStandardType else {
            location -= 1
            return readValue()
        }
        return readStandardValue(ofType: type)
    }

    /// The value of a standard type byte, as iOS code sees it; the bytes are read by
    /// ChannelBridge's `StandardReader`, as Flutter's iOS reader reads them with its codec helper
    /// rather than through the overridable methods above.
    private func readStandardValue(ofType type: UInt8) -> Any? {
        guard failure == nil else { return nil }
        let start = location - 1
        switch type {
        case StandardEncoding.null: return nil
        case StandardEncoding.true: return NSNumber(value: true)
        case StandardEncoding.false: return NSNumber(value: false)
        case StandardEncoding.int32:
            return read(nil) { (reader) throws(CodecError) in NSNumber(value: try reader.readInt32()) }
        case StandardEncoding.int64:
            return read(nil) { (reader) throws(CodecError) in NSNumber(value: try reader.readInt64()) }
        case StandardEncoding.largeInteger, StandardEncoding.string:
            // A count past the bytes left is named at the size, as `readUTF8()` names it.
            return read(nil) { (reader) throws(CodecError) in try reader.readString(at: reader.offset) }
        case StandardEncoding.float64:
            return read(nil) { (reader) throws(CodecError) in
                try reader.readAlignment(8)
                return NSNumber(value: try reader.readFloat64())
            }
        case StandardEncoding.list:
            guard let count = readCount(minimumSize: 1, "list", at: start), enter(at: start) else { return nil }
            defer { depth -= 1 }
            var list: [Any?] = []
            list.reserveCapacity(count)
            for _ in 0..<count {
                list.append(readElement())
                if failure != nil { return nil }
            }
            return list
        case StandardEncoding.map:
            guard let count = readCount(minimumSize: 2, "map", at: start), enter(at: start) else { return nil }
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
            guard let dataType = FlutterStandardDataType(field: type), let list = StandardEncoding.typedList(type)
            else {
                fail(CodecError(.unknownType, "unknown type \(type)", offset: start))
                return nil
            }
            return read(nil) { (reader) throws(CodecError) in
                let count = try reader.readTypedListHeader(elementSize: list.elementSize, list.name, at: start)
                return FlutterStandardTypedData(
                    data: Data(try reader.readSpan(count * list.elementSize)), type: dataType)
            }
        }
    }

    /// A list's or map's size, refused before anything is allocated for it when the bytes left
    /// cannot hold that many elements of `minimumSize` bytes.
    private func readCount(minimumSize: Int, _ what: String, at start: Int) -> Int? {
        read(nil) { (reader) throws(CodecError) -> Int? in
            let count = try reader.readSize()
            try reader.checkCount(count, minimumSize: minimumSize, what, at: start)
            return count
        }
    }

    /// Runs `body` with a ChannelBridge `StandardReader` at this reader's location, which moves
    /// on with it. After a failure, or when `body` fails (recorded), gives `fallback`.
    private func read<T>(_ fallback: T, _ body: (inout StandardReader) throws(CodecError) -> T) -> T {
        guard failure == nil else { return fallback }
        let outcome: Result<T, CodecError> = bytes.withUnsafeBytes { raw in
            var reader = StandardReader(raw, at: location)
            defer { location = reader.offset }
            return Result { () throws(CodecError) -> T in try body(&reader) }
        }
        switch outcome {
        case .success(let value):
            return value
        case .failure(let error):
            fail(error)
            return fallback
        }
    }

    private func enter(at start: Int) -> Bool {
        depth += 1
        if let keyBaseDepth, depth - keyBaseDepth > Self.maximumKeyDepth {
            depth -= 1
            fail(
                CodecError(.nestingTooDeep, "a map key nests deeper than \(Self.maximumKeyDepth) levels", offset: start)
            )
            return false
        }
        guard depth > Self.maximumDepth else { return true }
        depth -= 1
        fail(CodecError(.nestingTooDeep, "values nest deeper than \(Self.maximumDepth) levels", offset: start))
        return false
    }

    /// Records the first problem; every later read returns zero or `nil`.
    private func fail(_ error: CodecError) {
        guard failure == nil else { return }
        failure = error
        location = bytes.count
    }
}

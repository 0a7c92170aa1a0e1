/// Reads Standard-codec bytes strictly: every read checks the bytes left, and every failure is a
/// `CodecError` naming the byte offset.
///
/// A reader is only valid inside the decode call that hands it out (it points into the message).
public struct StandardReader {
    let base: UnsafeRawBufferPointer
    /// Offset of the next byte to read, from the first byte of the message.
    public private(set) var offset: Int
    var depth = 0
    let maxDepth: Int
    /// The codec's extension, which the codec handing out this reader keeps alive for as long as
    /// the reader is valid: not retained, so that a reader costs no reference counting.
    unowned(unsafe) let extensionBox: CodecExtensionBox?
    /// The message's last bytes, when it came in two parts (`StandardMessageCodec.read(head:tail:)`):
    /// a `Uint8List` that starts at the end of `base` and takes exactly these bytes is this array,
    /// uncopied. Any other read stops at the end of `base`. Kept alive by the codec for as long as
    /// the reader is valid, and not retained here: with `extensionBox`, this leaves a reader
    /// nothing to release.
    unowned(unsafe) var tail: MessageTail?
    /// Bytes of memory the values still to be built may take (`charge`); starts at the message's
    /// decoding allowance.
    var allowance: Int
    /// The whole message's length, for the error that names the allowance.
    var messageCount: Int

    init(_ base: UnsafeRawBufferPointer, maxDepth: Int, extensionBox: CodecExtensionBox?, messageCount: Int? = nil) {
        self.base = base
        self.offset = 0
        self.maxDepth = maxDepth
        self.extensionBox = extensionBox
        self.messageCount = messageCount ?? base.count
        self.allowance = StandardMessageCodec.decodingAllowance(forMessageOf: self.messageCount)
    }

    /// A reader of `base` from `offset`, for reading the encoding's parts one at a time (the
    /// `Flutter` module's reader reads through one); values it reads nest at most as deep as the
    /// codec's default allows and take no codec extension.
    package init(_ base: UnsafeRawBufferPointer, at offset: Int) {
        self.init(base, maxDepth: 1_000, extensionBox: nil)
        self.offset = offset
    }

    /// Moves past `count` bytes the caller has checked are there.
    mutating func skip(_ count: Int) {
        offset += count
    }

    /// Bytes not yet read.
    public var remaining: Int { base.count - offset }
    public var isAtEnd: Bool { offset == base.count && tail == nil }

    func truncated(_ what: String, needed: Int) -> CodecError {
        let unit = needed == 1 ? "byte" : "bytes"
        return CodecError(
            .truncated, "truncated \(what): needs \(needed) \(unit), \(base.count - offset) left", offset: offset)
    }

    @inline(__always)  // a few times per value: a call costs more than the read
    public mutating func readByte() throws(CodecError) -> UInt8 {
        guard offset < base.count else { throw truncated("value", needed: 1) }
        defer { offset += 1 }
        return base[offset]
    }

    @inline(__always)
    mutating func readFixed<T: FixedWidthInteger>(_: T.Type, _ what: String) throws(CodecError) -> T {
        let size = MemoryLayout<T>.size
        guard base.count - offset >= size else { throw truncated(what, needed: size) }
        defer { offset += size }
        return T(littleEndian: base.loadUnaligned(fromByteOffset: offset, as: T.self))
    }

    public mutating func readInt32() throws(CodecError) -> Int32 { try readFixed(Int32.self, "int32") }
    public mutating func readInt64() throws(CodecError) -> Int64 { try readFixed(Int64.self, "int64") }
    public mutating func readUInt16() throws(CodecError) -> UInt16 { try readFixed(UInt16.self, "size") }
    public mutating func readUInt32() throws(CodecError) -> UInt32 { try readFixed(UInt32.self, "size") }

    public mutating func readFloat64() throws(CodecError) -> Double {
        Double(bitPattern: UInt64(bitPattern: try readFixed(Int64.self, "float64")))
    }

    /// Reads a size in any of the three forms, including longer-than-needed ones.
    @inline(__always)  // the one-byte form in line, the others in `readLongSize`
    public mutating func readSize() throws(CodecError) -> Int {
        let first = try readByte()
        if first < 254 { return Int(first) }
        return try readLongSize(first)
    }

    private mutating func readLongSize(_ first: UInt8) throws(CodecError) -> Int {
        first == 254 ? Int(try readUInt16()) : Int(try readUInt32())
    }

    /// Skips padding up to the next multiple of `alignment`, without looking at its content.
    public mutating func readAlignment(_ alignment: Int) throws(CodecError) {
        let pad = StandardEncoding.padding(at: offset, alignment: alignment)
        guard pad != 0 else { return }
        guard base.count - offset >= pad else { throw truncated("alignment padding", needed: pad) }
        offset += pad
    }

    /// Reads `count` raw bytes.
    public mutating func readBytes(_ count: Int) throws(CodecError) -> [UInt8] {
        Array(try readSpan(count))
    }

    /// Moves past the next `count` bytes and returns them where they lie, in the message.
    package mutating func readSpan(_ count: Int) throws(CodecError) -> UnsafeRawBufferPointer {
        guard count <= base.count - offset else { throw truncated("bytes", needed: count) }
        defer { offset += count }
        return UnsafeRawBufferPointer(rebasing: base[offset..<offset + count])
    }

    /// Rejects a count before anything is allocated for it: `count` elements of at least
    /// `minimumSize` bytes each must fit in what is left.
    package mutating func checkCount(_ count: Int, minimumSize: Int, _ what: String, at start: Int) throws(CodecError) {
        if count > (base.count - offset) / minimumSize {
            throw CodecError(
                .sizeTooLarge,
                "\(what) claims \(count) elements but only \(base.count - offset) bytes are left",
                offset: start)
        }
    }

    /// Takes `bytes` of memory that the value being read is about to allocate from the allowance,
    /// before allocating them; past it, the message is refused.
    @inline(__always)
    mutating func charge(_ bytes: Int, _ what: @autoclosure () -> String, at start: Int) throws(CodecError) {
        allowance -= bytes
        if allowance < 0 { throw allowanceExceeded(what(), bytes: bytes, at: start) }
    }

    private func allowanceExceeded(_ what: String, bytes: Int, at start: Int) -> CodecError {
        let k = StandardMessageCodec.allowanceBytesPerByte
        let slack = StandardMessageCodec.allowanceSlack
        let limit = StandardMessageCodec.decodingAllowance(forMessageOf: messageCount)
        return CodecError(
            .decodedTooLarge,
            "\(what) would take \(bytes) bytes of memory, past the decoding allowance of this "
                + "\(messageCount)-byte message: \(limit) bytes (\(k) × its size + \(slack)) for all its values",
            offset: start)
    }

    /// What a heap buffer of `count` elements of `size` bytes costs: its header and elements.
    @inline(__always)
    static func heapCost(_ count: Int, _ size: Int) -> Int { 32 + count * size }

    /// The most UTF-8 bytes a String holds inline on a 64-bit platform (no allocation).
    static var smallStringCapacity: Int { MemoryLayout<Int>.size == 8 ? 15 : 10 }

    /// A size and that many bytes of UTF-8; a count past the bytes left is named at `start`.
    package mutating func readString(at start: Int) throws(CodecError) -> String {
        let count = try readSize()
        guard count <= base.count - offset else {
            throw CodecError(
                .sizeTooLarge, "string claims \(count) bytes but only \(base.count - offset) are left",
                offset: start)
        }
        if count > Self.smallStringCapacity {
            try charge(Self.heapCost(count + 1, 1), "string of \(count) bytes", at: start)
        }
        let utf8 = UnsafeRawBufferPointer(rebasing: base[offset..<offset + count])
        guard let string = Self.string(utf8: utf8) else {
            throw CodecError(.invalidUTF8, "string is not valid UTF-8", offset: offset + invalidUTF8Offset(utf8))
        }
        offset += count
        return string
    }

    /// `utf8` as a String, or `nil` when it is not valid UTF-8: how every String value is read.
    @inline(__always)
    package static func string(utf8: UnsafeRawBufferPointer) -> String? {
        // ASCII is valid UTF-8: checked a word at a time, it skips the generic validator, whose
        // metadata lookups cost more than the copy.
        guard isASCII(utf8) else {
            return String(validating: utf8.assumingMemoryBound(to: UInt8.self), as: UTF8.self)
        }
        // A short one is a small string, made from its two words (`smallASCIIString`):
        // `String(unsafeUninitializedCapacity:)` validates the bytes once more through a generic
        // closure, and `String(decoding:as:)` goes through the repairing decoder, each the larger
        // part of reading a short string.
        #if _endian(little)
        if utf8.count <= smallStringCapacity, MemoryLayout<String>.size == 16 { return smallASCIIString(utf8) }
        #endif
        return String(decoding: utf8.assumingMemoryBound(to: UInt8.self), as: UTF8.self)
    }

    /// `ascii` (at most 15 bytes, every one below 0x80) as the small string the standard library
    /// makes of them, built from its two words: the bytes in order from the first word's lowest
    /// byte on, zeros after them, and in the last byte the discriminator of an immortal small
    /// ASCII string (0xE0) with the count in its low four bits. That is the layout of a small
    /// string on 64-bit little-endian platforms (StringObject.swift); `StringIdentityTests`
    /// compares what this makes with what `String(decoding:as:)` makes, bit for bit, for every
    /// length, so a standard library that lays small strings out otherwise fails there.
    @inline(__always)
    static func smallASCIIString(_ ascii: UnsafeRawBufferPointer) -> String {
        let count = ascii.count
        var low: UInt64 = 0
        var high: UInt64 = 0
        if count >= 8 {
            low = ascii.loadUnaligned(as: UInt64.self)
            // The last eight bytes, shifted so that the ninth byte on comes first.
            if count > 8 {
                high = ascii.loadUnaligned(fromByteOffset: count - 8, as: UInt64.self) &>> UInt64(8 * (16 - count))
            }
        } else if count >= 4 {
            let head = UInt64(ascii.loadUnaligned(as: UInt32.self))
            let tail = UInt64(ascii.loadUnaligned(fromByteOffset: count - 4, as: UInt32.self))
            low = head | tail &<< UInt64(8 * (count - 4))
        } else {
            for index in 0..<count { low |= UInt64(ascii[index]) &<< UInt64(8 * index) }
        }
        high |= (0xE0 | UInt64(count)) &<< 56
        return unsafeBitCast((low, high), to: String.self)
    }

    /// A typed list's size and the padding before its elements: the count, the offset left at the
    /// first element. A count the bytes left cannot hold is refused before and after the
    /// padding, so an absurd count is named as such.
    package mutating func readTypedListHeader(elementSize: Int, _ what: String, at start: Int) throws(CodecError) -> Int
    {
        let count = try readSize()
        try checkCount(count, minimumSize: elementSize, what, at: start)
        try readAlignment(elementSize)
        try checkCount(count, minimumSize: elementSize, what, at: start)
        return count
    }

    /// The elements of the typed list of type byte `type`, whose elements are `T`s (or their bits).
    mutating func readTypedList<T: FixedWidthInteger>(
        _: T.Type, type: UInt8, at start: Int
    ) throws(CodecError) -> [T] {
        let size = MemoryLayout<T>.size
        let what = StandardEncoding.typedList(type)!.name
        let count = try readTypedListHeader(elementSize: size, what, at: start)
        // A Float64List or Float32List is read as bits, then converted: two arrays at a time.
        let copies = T.self == UInt64.self || T.self == UInt32.self ? 2 : 1
        if count > 0 { try charge(copies * Self.heapCost(count, size), "\(what) of \(count) elements", at: start) }
        // Not through `unsafeUninitializedCapacity` when empty: with capacity 0 the standard
        // library stores the count into the shared empty-array singleton, a write that
        // ThreadSanitizer reports as a race between two threads decoding empty typed lists.
        guard count > 0 else { return [] }
        let result = [T](unsafeUninitializedCapacity: count) { buffer, initialized in
            UnsafeMutableRawBufferPointer(buffer).copyMemory(
                from: UnsafeRawBufferPointer(rebasing: base[offset..<offset + count * size]))
            initialized = count
        }
        offset += count * size
        return result
    }

    /// Reads one complete value (type byte and payload), handing unknown types to the extension.
    public mutating func readValue() throws(CodecError) -> StandardValue {
        let start = offset
        let tag = try readByte()
        return try readValue(ofType: tag, at: start)
    }

    /// Lists, maps and custom values recurse through here; their functions are apart from the
    /// scalars' so that each level of nesting costs a few small stack frames, not one frame the
    /// size of every case (an unoptimized build otherwise spends about 4 KiB a level).
    mutating func readValue(ofType tag: UInt8, at start: Int) throws(CodecError) -> StandardValue {
        switch tag {
        case StandardEncoding.list: return .list(try readList(at: start))
        case StandardEncoding.map: return .map(try readMap(at: start))
        case ...StandardEncoding.lastStandardType: return try readScalar(ofType: tag, at: start)
        default: return try readCustom(ofType: tag, at: start)
        }
    }

    /// Every type that holds no other value.
    private mutating func readScalar(ofType tag: UInt8, at start: Int) throws(CodecError) -> StandardValue {
        switch tag {
        case StandardEncoding.null: return .null
        case StandardEncoding.true: return .bool(true)
        case StandardEncoding.false: return .bool(false)
        case StandardEncoding.int32: return .int32(try readFixed(Int32.self, "int32"))
        case StandardEncoding.int64: return .int64(try readFixed(Int64.self, "int64"))
        case StandardEncoding.largeInteger, StandardEncoding.string:
            // The legacy "large integer" is laid out like a string; Dart, C++ and Objective-C read
            // it as one.
            return .string(try readString(at: start))
        case StandardEncoding.float64:
            try readAlignment(8)
            return .float64(Double(bitPattern: UInt64(bitPattern: try readFixed(Int64.self, "float64"))))
        case StandardEncoding.uint8List:
            let count = try readSize()
            if let tail, offset == base.count, count == tail.bytes.count {
                self.tail = nil
                return .uint8List(tail.bytes)
            }
            try checkCount(count, minimumSize: 1, "Uint8List", at: start)
            if count > 0 { try charge(Self.heapCost(count, 1), "Uint8List of \(count) bytes", at: start) }
            return .uint8List(try readBytes(count))
        case StandardEncoding.int32List:
            return .int32List(try readTypedList(Int32.self, type: StandardEncoding.int32List, at: start))
        case StandardEncoding.int64List:
            return .int64List(try readTypedList(Int64.self, type: StandardEncoding.int64List, at: start))
        case StandardEncoding.float64List:
            return .float64List(
                try readTypedList(UInt64.self, type: StandardEncoding.float64List, at: start).map {
                    Double(bitPattern: $0)
                })
        default:
            return .float32List(
                try readTypedList(UInt32.self, type: StandardEncoding.float32List, at: start).map {
                    Float(bitPattern: $0)
                })
        }
    }

    private mutating func readList(at start: Int) throws(CodecError) -> [StandardValue] {
        let count = try readSize()
        try checkCount(count, minimumSize: 1, "list", at: start)
        if count > 0 {
            try charge(Self.heapCost(count, MemoryLayout<StandardValue>.stride), "list of \(count) elements", at: start)
        }
        try enter(at: start)
        var elements: [StandardValue] = []
        elements.reserveCapacity(count)
        for _ in 0..<count { elements.append(try readValue()) }
        depth -= 1
        return elements
    }

    private mutating func readMap(at start: Int) throws(CodecError) -> [StandardValue.MapEntry] {
        let count = try readSize()
        try checkCount(count, minimumSize: 2, "map", at: start)
        if count > 0 {
            try charge(
                Self.heapCost(count, MemoryLayout<StandardValue.MapEntry>.stride), "map of \(count) entries", at: start)
        }
        try enter(at: start)
        var entries: [StandardValue.MapEntry] = []
        entries.reserveCapacity(count)
        for _ in 0..<count {
            let key = try readValue()
            entries.append(StandardValue.MapEntry(key, try readValue()))
        }
        depth -= 1
        return entries
    }

    private mutating func readCustom(ofType tag: UInt8, at start: Int) throws(CodecError) -> StandardValue {
        if let extensionBox {
            try enter(at: start)
            let value = try extensionBox.value.readValue(ofType: tag, from: &self)
            depth -= 1
            if let value { return value }
        }
        throw CodecError(.unknownType, "unknown type \(tag)", offset: start)
    }

    mutating func enter(at start: Int) throws(CodecError) {
        depth += 1
        if depth > maxDepth {
            throw CodecError(.nestingTooDeep, "values nest deeper than \(maxDepth) levels", offset: start)
        }
    }

    /// True when every byte is below 0x80; eight bytes per step.
    @inline(__always)
    static func isASCII(_ bytes: UnsafeRawBufferPointer) -> Bool {
        let count = bytes.count
        // Short strings (the common case) in one or two loads, overlapping when the count is not
        // a power of two, instead of a loop over the last bytes.
        if count < 8 {
            if count >= 4 {
                let head = bytes.loadUnaligned(fromByteOffset: 0, as: UInt32.self)
                let last = bytes.loadUnaligned(fromByteOffset: count - 4, as: UInt32.self)
                return (head | last) & 0x8080_8080 == 0
            }
            var index = 0
            while index < count {
                if bytes[index] & 0x80 != 0 { return false }
                index += 1
            }
            return true
        }
        var index = 0
        while index + 8 <= count {
            if bytes.loadUnaligned(fromByteOffset: index, as: UInt64.self) & 0x8080_8080_8080_8080 != 0 { return false }
            index += 8
        }
        // The last bytes as the last eight, overlapping what was checked.
        guard index < count else { return true }
        return bytes.loadUnaligned(fromByteOffset: count - 8, as: UInt64.self) & 0x8080_8080_8080_8080 == 0
    }
}

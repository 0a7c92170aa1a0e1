import ChannelBridgeBytes

/// Appends Standard-codec bytes to one growing buffer.
///
/// Codec extensions receive a writer to write their custom values: the tag byte, then any payload,
/// using `writeValue` for nested Standard values. Alignment is counted from the first byte of the
/// whole message, which is this buffer's first byte.
public struct StandardWriter {
    /// The bytes being written: the whole message, or in a segmenting writer the bytes since the
    /// last large byte list it kept by reference, are `current[..<used]`. The rest of `current` is
    /// room, already counted in the array (see `room(_:)`, or a reused buffer's old bytes), so that
    /// a value is stored through a pointer after one check of room and uniqueness: appending to an array pays both
    /// checks for every byte, which would dominate the cost of a short string.
    /// Invariant: never empty until the codec takes it (`takeBytes`, `takeSegments`).
    private var current: [UInt8]
    private var used = 0
    /// A segmenting writer's finished segments, before `current`; nil until it keeps a byte list
    /// (nil costs no release when a writer ends, an empty array one).
    private var finished: [[UInt8]]?
    private var finishedCount = 0
    private let keepsLargeByteLists: Bool
    let extensionBox: CodecExtensionBox?

    /// A `Uint8List` at least this long is kept as its own segment by a segmenting writer.
    static let keptByteListLength = 64 << 10

    /// Room a writer starts with, and the least a reused buffer is given.
    static let initialRoom = 64

    public init(reservingCapacity capacity: Int = 64, extension codecExtension: (any StandardCodecExtension)? = nil) {
        self.init(
            reservingCapacity: capacity, extensionBox: codecExtension.map(CodecExtensionBox.init),
            keepingLargeByteLists: false)
    }

    init(reservingCapacity capacity: Int, extensionBox: CodecExtensionBox?, keepingLargeByteLists: Bool) {
        current = Self.room(max(capacity, 1))
        self.extensionBox = extensionBox
        keepsLargeByteLists = keepingLargeByteLists
    }

    /// A segmenting writer over `buffer`'s storage, which `buffer` gives up meanwhile. Its old
    /// bytes are not cleared: they are room, overwritten as the message grows.
    init(reusing buffer: inout [UInt8], extensionBox: CodecExtensionBox?) {
        current = []
        swap(&current, &buffer)
        self.extensionBox = extensionBox
        keepsLargeByteLists = true
        if current.count < Self.initialRoom { grow(toHold: Self.initialRoom) }
    }

    /// When everything written is one array (no large byte list was kept by reference): moves the
    /// storage into `buffer`, whose first bytes, as many as returned, are the message (the rest is
    /// room, not part of it). Otherwise leaves both as they are and returns `nil`.
    mutating func giveBackBuffer(to buffer: inout [UInt8]) -> Int? {
        guard finished == nil else { return nil }
        swap(&current, &buffer)
        return used
    }

    /// Everything written so far, as one array.
    public var bytes: [UInt8] {
        var all: [UInt8] = []
        all.reserveCapacity(finishedCount + used)
        for segment in finished ?? [] { all.append(contentsOf: segment) }
        current.withUnsafeBufferPointer { all.append(contentsOf: $0[..<used]) }
        return all
    }

    /// Everything written, as one array, taking the writer's storage instead of copying it: the
    /// codecs' way to end a writer (`bytes` copies, since the storage is larger than the message).
    mutating func takeBytes() -> [UInt8] {
        guard finished == nil else { return bytes }
        trimCurrent()
        return current
    }

    /// Everything written, in order, as a payload whose parts together are `bytes`: one array,
    /// except that a segmenting writer keeps each large `Uint8List` as the value's own array
    /// instead of copying it, so a transport can send it with scatter-gather I/O. Without kept
    /// lists the payload has no segments and nothing is allocated for them. Takes the writer's
    /// storage.
    mutating func takeSegments() -> Payload {
        trimCurrent()
        guard let finished, let first = finished.first else { return Payload(current) }
        var rest = Array(finished.dropFirst())
        if !current.isEmpty { rest.append(current) }
        return Payload(first, segments: rest)
    }

    /// Cuts `current` down to the bytes written.
    private mutating func trimCurrent() {
        if current.count != used { current.removeSubrange(used...) }
    }

    /// Bytes written so far: alignment counts from the first byte of the whole message.
    private var position: Int { finishedCount + used }

    private mutating func keep(_ byteList: [UInt8]) {
        if finished == nil { finished = [] }
        if used > 0 {
            trimCurrent()
            finished!.append(current)
        }
        finished!.append(byteList)
        finishedCount += used + byteList.count
        current = Self.room(Self.initialRoom)
        used = 0
    }

    /// `count` bytes of room. They are left as the allocator gives them: no byte past `used` is
    /// ever read (`bytes`, `takeBytes` and a reused buffer's count stop there), and zeroing them
    /// cost a `memset` of every size the storage grows through.
    private static func room(_ count: Int) -> [UInt8] {
        [UInt8](unsafeUninitializedCapacity: count) { _, initialized in initialized = count }
    }

    /// Makes room for `count` more bytes.
    @inline(__always)
    private mutating func reserve(_ count: Int) {
        if current.count - used < count { grow(toHold: used + count) }
    }

    @inline(never)
    private mutating func grow(toHold total: Int) {
        var larger = Self.room(Swift.max(total, current.count * 2, Self.initialRoom))
        if used > 0 {
            larger.withUnsafeMutableBytes { target in
                current.withUnsafeBytes { target.baseAddress!.copyMemory(from: $0.baseAddress!, byteCount: used) }
            }
        }
        current = larger
    }

    /// Stores `count` bytes that `body` writes at the pointer it is given, after one check.
    @inline(__always)
    private mutating func store(_ count: Int, _ body: (UnsafeMutableRawPointer) -> Void) {
        reserve(count)
        let start = used
        current.withUnsafeMutableBytes { body($0.baseAddress.unsafelyUnwrapped + start) }
        used = start + count
    }

    /// Copies `source` to `target`: a few bytes (a method name, a short string) one by one, since
    /// a `memcpy` call costs more than they do.
    @inline(__always)
    private static func copy(_ source: UnsafeRawBufferPointer, to target: UnsafeMutableRawPointer) {
        guard let from = source.baseAddress else { return }
        if source.count <= 16 {
            for index in 0..<source.count { target.storeBytes(of: source[index], toByteOffset: index, as: UInt8.self) }
        } else {
            target.copyMemory(from: from, byteCount: source.count)
        }
    }

    @inline(__always)
    private mutating func append<T: FixedWidthInteger>(littleEndian value: T) {
        store(MemoryLayout<T>.size) { $0.storeBytes(of: value.littleEndian, as: T.self) }
    }

    /// A tag byte followed by a fixed-size value.
    @inline(__always)
    private mutating func append<T: FixedWidthInteger>(tag: UInt8, littleEndian value: T) {
        store(1 + MemoryLayout<T>.size) { target in
            target.storeBytes(of: tag, as: UInt8.self)
            target.storeBytes(of: value.littleEndian, toByteOffset: 1, as: T.self)
        }
    }

    /// `prefix` (a tag, or nothing when `nil`), the size of `bytes`, then `bytes`.
    @inline(__always)
    private mutating func appendSized(tag: UInt8?, _ bytes: UnsafeRawBufferPointer) {
        let tagLength = tag == nil ? 0 : 1
        store(tagLength + StandardEncoding.sizeLength(bytes.count) + bytes.count) { target in
            if let tag { target.storeBytes(of: tag, as: UInt8.self) }
            let sizeLength = StandardEncoding.storeSize(bytes.count, at: target + tagLength)
            Self.copy(bytes, to: target + tagLength + sizeLength)
        }
    }

    @inline(__always)
    private mutating func append(_ raw: UnsafeRawBufferPointer) {
        store(raw.count) { Self.copy(raw, to: $0) }
    }

    public mutating func writeByte(_ byte: UInt8) {
        store(1) { $0.storeBytes(of: byte, as: UInt8.self) }
    }

    public mutating func writeBytes(_ other: some Collection<UInt8>) {
        let copied: Void? = other.withContiguousStorageIfAvailable { append(UnsafeRawBufferPointer($0)) }
        guard copied == nil else { return }
        let count = other.count
        store(count) { target in
            var index = 0
            for byte in other.prefix(count) {
                target.storeBytes(of: byte, toByteOffset: index, as: UInt8.self)
                index += 1
            }
        }
    }

    public mutating func writeInt32(_ value: Int32) {
        append(littleEndian: value)
    }

    public mutating func writeInt64(_ value: Int64) {
        append(littleEndian: value)
    }

    public mutating func writeUInt16(_ value: UInt16) {
        append(littleEndian: value)
    }

    public mutating func writeUInt32(_ value: UInt32) {
        append(littleEndian: value)
    }

    /// Writes the IEEE-754 bits as they are (NaN payloads and signs survive), without alignment.
    public mutating func writeFloat64(_ value: Double) {
        append(littleEndian: value.bitPattern)
    }

    /// Writes a size in the shortest of the three forms: 1, 3 or 5 bytes.
    public mutating func writeSize(_ size: Int) {
        store(StandardEncoding.sizeLength(size)) { _ = StandardEncoding.storeSize(size, at: $0) }
    }

    /// Pads with zero bytes until the message length is a multiple of `alignment`.
    public mutating func writeAlignment(_ alignment: Int) {
        let padding = StandardEncoding.padding(at: position, alignment: alignment)
        guard padding != 0 else { return }
        store(padding) { $0.initializeMemory(as: UInt8.self, repeating: 0, count: padding) }
    }

    /// Writes any value, handing custom values to the codec extension.
    public mutating func writeValue(_ value: StandardValue) throws(CodecError) {
        // A string, the commonest answer, without `write`'s copy of the value out of its pointer
        // (a retain and a release).
        if case .string(let string) = value {
            writeString(string, tag: StandardEncoding.string)
            return
        }
        try withUnsafePointer(to: value) { (pointer) throws(CodecError) in try write(pointer) }
    }

    /// The recursive writer. Values are reached through pointers into their parents' storage, so
    /// that an element is read in place: passing elements by value made a copy (and a retain and
    /// release) of every one, which cost more than writing it.
    private mutating func write(_ value: UnsafePointer<StandardValue>) throws(CodecError) {
        switch value.pointee {
        case .null: writeByte(StandardEncoding.null)
        case .bool(let flag): writeByte(flag ? StandardEncoding.true : StandardEncoding.false)
        case .int32(let v): append(tag: StandardEncoding.int32, littleEndian: v)
        case .int64(let v): append(tag: StandardEncoding.int64, littleEndian: v)
        case .float64(let v):
            writeByte(StandardEncoding.float64)
            writeAlignment(8)
            append(littleEndian: v.bitPattern)
        case .string(let s):
            writeString(s, tag: StandardEncoding.string)
        case .uint8List(let v):
            if keepsLargeByteLists && v.count >= Self.keptByteListLength {
                writeByte(StandardEncoding.uint8List)
                writeSize(v.count)
                keep(v)
            } else {
                v.withUnsafeBytes { appendSized(tag: StandardEncoding.uint8List, $0) }
            }
        case .int32List(let v):
            writeTypedList(tag: StandardEncoding.int32List, v)
        case .int64List(let v):
            writeTypedList(tag: StandardEncoding.int64List, v)
        case .float64List(let v):
            writeTypedList(tag: StandardEncoding.float64List, v)
        case .float32List(let v):
            writeTypedList(tag: StandardEncoding.float32List, v)
        case .list(let elements):
            writeByte(StandardEncoding.list)
            writeSize(elements.count)
            try elements.withUnsafeBufferPointer { (buffer) throws(CodecError) in
                guard var element = buffer.baseAddress else { return }
                for _ in 0..<buffer.count {
                    try write(element)
                    element += 1
                }
            }
        case .map(let entries):
            writeByte(StandardEncoding.map)
            writeSize(entries.count)
            try entries.withUnsafeBufferPointer { (buffer) throws(CodecError) in
                guard let first = buffer.baseAddress else { return }
                let (keyOffset, valueOffset) = (Self.keyOffset, Self.valueOffset)
                for index in 0..<buffer.count {
                    let entry = UnsafeRawPointer(first + index)
                    try write((entry + keyOffset).assumingMemoryBound(to: StandardValue.self))
                    try write((entry + valueOffset).assumingMemoryBound(to: StandardValue.self))
                }
            }
        case .custom(let custom):
            try writeCustom(custom)
        }
    }

    private static let keyOffset = MemoryLayout<StandardValue.MapEntry>.offset(of: \.key)!
    private static let valueOffset = MemoryLayout<StandardValue.MapEntry>.offset(of: \.value)!

    /// The tag, the size and the UTF-8 of `string`, stored after one check.
    /// A String value (tag 7): what `writeValue(.string(string))` writes, without the value.
    mutating func writeString(_ string: String) {
        writeString(string, tag: StandardEncoding.string)
    }

    private mutating func writeString(_ string: String, tag: UInt8) {
        // A small string (bit 61 of its second word set) holds its UTF-8 in its two words from the
        // first byte on and its count in the last byte's low four bits
        // (`StandardReader.smallASCIIString`): written as the tag, the count (one byte, at most
        // 15) and both words at once, their bytes past the count left past `used` as room, which
        // is never read. `StandardWriterTests` checks every length.
        #if _endian(little)
        if MemoryLayout<String>.size == 16 {
            let (low, high) = unsafeBitCast(string, to: (UInt64, UInt64).self)
            if high & (1 &<< 61) != 0 {
                let count = Int(truncatingIfNeeded: high &>> 56) & 0xF
                reserve(18)
                let start = used
                current.withUnsafeMutableBytes { raw in
                    let target = raw.baseAddress.unsafelyUnwrapped + start
                    target.storeBytes(of: tag, as: UInt8.self)
                    target.storeBytes(of: UInt8(truncatingIfNeeded: count), toByteOffset: 1, as: UInt8.self)
                    target.storeBytes(of: low.littleEndian, toByteOffset: 2, as: UInt64.self)
                    target.storeBytes(
                        of: (high & 0x00FF_FFFF_FFFF_FFFF).littleEndian, toByteOffset: 10, as: UInt64.self)
                }
                used = start + 2 + count
                return
            }
        }
        #endif
        // Native strings (small ones included) lend their UTF-8 as they are; `withUTF8` needs a
        // mutable copy, a retain and release more.
        let lent: Void? = string.utf8.withContiguousStorageIfAvailable { utf8 in
            appendSized(tag: tag, UnsafeRawBufferPointer(utf8))
        }
        guard lent == nil else { return }
        var string = string
        string.withUTF8 { utf8 in appendSized(tag: tag, UnsafeRawBufferPointer(utf8)) }
    }

    // Typed lists are always padded, even when empty: every Flutter reader aligns before reading
    // the elements, so the unpadded form (Flutter's C++ writer) does not read back. The elements
    // align to their own size.
    mutating func writeTypedList<T>(tag: UInt8, _ elements: [T]) {
        writeByte(tag)
        writeSize(elements.count)
        writeAlignment(MemoryLayout<T>.size)
        // Element types are little-endian on every platform this package builds for.
        elements.withUnsafeBytes { append($0) }
    }

    private mutating func writeCustom(_ custom: CustomValue) throws(CodecError) {
        if let raw = custom.as(RawCustomValue.self) {
            writeByte(raw.customTag)
            raw.payload.withUnsafeBytes { append($0) }
            return
        }
        if let extensionBox, try extensionBox.value.writeValue(custom, to: &self) {
            return
        }
        throw CodecError(
            .unencodable,
            "no codec extension writes custom type \(type(of: custom.base)) (tag \(custom.tag))")
    }
}

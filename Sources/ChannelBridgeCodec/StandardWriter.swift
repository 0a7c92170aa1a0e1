/// Appends Standard-codec bytes to one growing buffer.
///
/// Codec extensions receive a writer to write their custom values: the tag byte, then any payload,
/// using `writeValue` for nested Standard values. Alignment is counted from the first byte of the
/// whole message, which is this buffer's first byte.
public struct StandardWriter {
    /// The buffer being appended to: the whole message, or in a segmenting writer the bytes
    /// since the last large byte list it kept by reference.
    private var current: [UInt8]
    /// A segmenting writer's finished segments, before `current`.
    private var finished: [[UInt8]] = []
    private var finishedCount = 0
    private let keepsLargeByteLists: Bool
    let extensionBox: CodecExtensionBox?

    /// A `Uint8List` at least this long is kept as its own segment by a segmenting writer.
    static let keptByteListLength = 64 << 10

    public init(reservingCapacity capacity: Int = 64, extension codecExtension: (any StandardCodecExtension)? = nil) {
        self.init(reservingCapacity: capacity, extensionBox: codecExtension.map(CodecExtensionBox.init),
                  keepingLargeByteLists: false)
    }

    init(reservingCapacity capacity: Int, extensionBox: CodecExtensionBox?, keepingLargeByteLists: Bool) {
        current = []
        current.reserveCapacity(capacity)
        self.extensionBox = extensionBox
        keepsLargeByteLists = keepingLargeByteLists
    }

    /// A segmenting writer over `buffer`'s storage, emptied, which `buffer` gives up meanwhile.
    init(reusing buffer: inout [UInt8], extensionBox: CodecExtensionBox?) {
        current = []
        swap(&current, &buffer)
        if !current.isEmpty { current.removeAll(keepingCapacity: true) }
        if current.capacity < 64 { current.reserveCapacity(64) }
        self.extensionBox = extensionBox
        keepsLargeByteLists = true
    }

    /// Moves everything written into `buffer` and returns true when it is one array (no large
    /// byte list was kept by reference); otherwise leaves both as they are and returns false.
    mutating func giveBackBuffer(to buffer: inout [UInt8]) -> Bool {
        guard finished.isEmpty else { return false }
        swap(&current, &buffer)
        return true
    }

    /// Everything written so far, as one array.
    public var bytes: [UInt8] {
        if finished.isEmpty { return current }
        var all: [UInt8] = []
        all.reserveCapacity(finishedCount + current.count)
        for segment in finished { all.append(contentsOf: segment) }
        all.append(contentsOf: current)
        return all
    }

    /// Everything written so far, in order, as arrays that together are `bytes`: `first` alone,
    /// except that a segmenting writer keeps each large `Uint8List` as the value's own array
    /// instead of copying it, so a transport can send it with scatter-gather I/O. Without kept
    /// lists `rest` is empty and nothing is allocated for it.
    var segments: EncodedSegments {
        guard let first = finished.first else { return EncodedSegments(current) }
        var rest = Array(finished.dropFirst())
        if !current.isEmpty { rest.append(current) }
        return EncodedSegments(first, rest: rest)
    }

    /// Bytes written so far: alignment counts from the first byte of the whole message.
    private var position: Int { finishedCount + current.count }

    private mutating func keep(_ byteList: [UInt8]) {
        if !current.isEmpty { finished.append(current) }
        finished.append(byteList)
        finishedCount += current.count + byteList.count
        current = []
        current.reserveCapacity(64)
    }

    @inline(__always)
    private mutating func append<T: FixedWidthInteger>(littleEndian value: T) {
        // Byte by byte: appending the bytes of the value as a buffer goes through a generic
        // sequence copy that costs several times more.
        var remaining = value.littleEndian
        for _ in 0..<MemoryLayout<T>.size {
            current.append(UInt8(truncatingIfNeeded: remaining))
            remaining = remaining >> 8
        }
    }

    @inline(__always)
    private mutating func append(_ raw: UnsafeRawBufferPointer) {
        // A few bytes (a method name, a short string) one by one: the bulk append's generic path
        // and its `memcpy` call cost several times more for them (issue 18).
        if raw.count <= 16 {
            for byte in raw { current.append(byte) }
        } else {
            current.append(contentsOf: raw.assumingMemoryBound(to: UInt8.self))
        }
    }

    public mutating func writeByte(_ byte: UInt8) {
        current.append(byte)
    }

    public mutating func writeBytes(_ other: some Collection<UInt8>) {
        current.append(contentsOf: other)
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
        if size < 254 {
            current.append(UInt8(truncatingIfNeeded: size))
        } else if size <= 0xFFFF {
            current.append(254)
            append(littleEndian: UInt16(truncatingIfNeeded: size))
        } else {
            current.append(255)
            append(littleEndian: UInt32(truncatingIfNeeded: size))
        }
    }

    /// Pads with zero bytes until the message length is a multiple of `alignment`.
    public mutating func writeAlignment(_ alignment: Int) {
        let remainder = position % alignment
        guard remainder != 0 else { return }
        for _ in 0..<alignment - remainder { current.append(0) }
    }

    /// Writes any value, handing custom values to the codec extension.
    public mutating func writeValue(_ value: StandardValue) throws(CodecError) {
        try withUnsafePointer(to: value) { (pointer) throws(CodecError) in try write(pointer) }
    }

    /// The recursive writer. Values are reached through pointers into their parents' storage, so
    /// that an element is read in place: passing elements by value made a copy (and a retain and
    /// release) of every one, which cost more than writing it.
    private mutating func write(_ value: UnsafePointer<StandardValue>) throws(CodecError) {
        switch value.pointee {
        case .null: current.append(0)
        case .bool(let flag): current.append(flag ? 1 : 2)
        case .int32(let v):
            current.append(3)
            append(littleEndian: v)
        case .int64(let v):
            current.append(4)
            append(littleEndian: v)
        case .float64(let v):
            current.append(6)
            writeAlignment(8)
            append(littleEndian: v.bitPattern)
        case .string(let s):
            current.append(7)
            writeString(s)
        case .uint8List(let v):
            current.append(8)
            writeSize(v.count)
            if keepsLargeByteLists && v.count >= Self.keptByteListLength {
                keep(v)
            } else {
                v.withUnsafeBytes { append($0) }
            }
        case .int32List(let v):
            writeTypedList(tag: 9, v, alignment: 4)
        case .int64List(let v):
            writeTypedList(tag: 10, v, alignment: 8)
        case .float64List(let v):
            writeTypedList(tag: 11, v, alignment: 8)
        case .float32List(let v):
            writeTypedList(tag: 14, v, alignment: 4)
        case .list(let elements):
            current.append(12)
            writeSize(elements.count)
            try elements.withUnsafeBufferPointer { (buffer) throws(CodecError) in
                guard var element = buffer.baseAddress else { return }
                for _ in 0..<buffer.count {
                    try write(element)
                    element += 1
                }
            }
        case .map(let entries):
            current.append(13)
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

    private mutating func writeString(_ string: String) {
        // Native strings (small ones included) lend their UTF-8 as they are; `withUTF8` needs a
        // mutable copy, a retain and release more.
        let lent: Void? = string.utf8.withContiguousStorageIfAvailable { utf8 in
            writeSize(utf8.count)
            append(UnsafeRawBufferPointer(utf8))
        }
        guard lent == nil else { return }
        var string = string
        string.withUTF8 { utf8 in
            writeSize(utf8.count)
            append(UnsafeRawBufferPointer(utf8))
        }
    }

    // Typed lists are always padded, even when empty: every Flutter reader aligns before reading
    // the elements, so the unpadded form (Flutter's C++ writer) does not read back.
    mutating func writeTypedList<T>(tag: UInt8, _ elements: [T], alignment: Int) {
        current.append(tag)
        writeSize(elements.count)
        writeAlignment(alignment)
        // Element types are little-endian on every platform this package builds for.
        elements.withUnsafeBytes { append($0) }
    }

    private mutating func writeCustom(_ custom: CustomValue) throws(CodecError) {
        if let raw = custom.as(RawCustomValue.self) {
            current.append(raw.customTag)
            raw.payload.withUnsafeBytes { append($0) }
            return
        }
        if let extensionBox, try extensionBox.value.writeValue(custom, to: &self) {
            return
        }
        throw CodecError(.unencodable,
                         "no codec extension writes custom type \(type(of: custom.base)) (tag \(custom.tag))")
    }
}

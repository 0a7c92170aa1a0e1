/// Writes little-endian fields one after another into memory sized for them beforehand (a frame
/// of `FrameEncoder.encodedLength(of:)` bytes in a transport's send block): a store per field,
/// where appending to an array would pay a uniqueness and capacity check for each. The
/// mirror of `ByteReader`.
///
/// Every write checks that it fits: a miscounted length stops the process rather than writing
/// past the memory it was given.
struct ByteWriter {
    private let target: UnsafeMutableRawBufferPointer
    private(set) var offset = 0

    init(_ target: UnsafeMutableRawBufferPointer) { self.target = target }

    @inline(__always)
    private func checkRoom(_ count: Int) {
        precondition(count <= target.count - offset, "a frame field runs past the frame's announced length")
    }

    @inline(__always)
    mutating func write(_ byte: UInt8) {
        checkRoom(1)
        target[offset] = byte
        offset += 1
    }

    @inline(__always)
    mutating func writeLittleEndian<T: FixedWidthInteger>(_ value: T) {
        let size = MemoryLayout<T>.size
        checkRoom(size)
        target.storeBytes(of: value.littleEndian, toByteOffset: offset, as: T.self)
        offset += size
    }

    @inline(__always)
    mutating func write(_ bytes: UnsafeRawBufferPointer) {
        checkRoom(bytes.count)
        guard let source = bytes.baseAddress, let start = target.baseAddress else { return }
        // A few bytes (a channel name, a small payload) one by one: a `memcpy` call costs more.
        if bytes.count <= 16 {
            for index in 0..<bytes.count {
                start.storeBytes(of: bytes[index], toByteOffset: offset + index, as: UInt8.self)
            }
        } else {
            (start + offset).copyMemory(from: source, byteCount: bytes.count)
        }
        offset += bytes.count
    }

    /// The UTF-8 of `string`, in place when the string lends it.
    mutating func write(utf8 string: String) {
        let lent: Void? = string.utf8.withContiguousStorageIfAvailable { write(UnsafeRawBufferPointer($0)) }
        guard lent == nil else { return }
        for byte in string.utf8 { write(byte) }
    }

    /// A u16 length and the UTF-8 of `string`, cut to 65,535 bytes (`validate` refuses longer
    /// ones; cutting keeps the frame well-formed rather than trapping).
    mutating func writeShortString(_ string: String) {
        let count = string.utf8.count
        guard count <= Int(UInt16.max) else {
            writeLittleEndian(UInt16.max)
            for byte in string.utf8.prefix(Int(UInt16.max)) { write(byte) }
            return
        }
        writeLittleEndian(UInt16(count))
        write(utf8: string)
    }

    /// Zeros whatever is left: only a frame whose field was cut leaves any.
    mutating func zeroRest() {
        guard offset < target.count else { return }
        UnsafeMutableRawBufferPointer(rebasing: target[offset...]).initializeMemory(as: UInt8.self, repeating: 0)
        offset = target.count
    }
}

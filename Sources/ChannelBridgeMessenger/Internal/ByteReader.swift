/// Reads little-endian fields from a frame body. Running past the end throws `EndOfInput`, which
/// callers turn into `shortBody` (or "need more bytes", on the incremental path).
struct ByteReader {
    struct EndOfInput: Error {}

    let bytes: UnsafeRawBufferPointer
    private(set) var offset = 0

    init(_ bytes: UnsafeRawBufferPointer) { self.bytes = bytes }

    var remaining: Int { bytes.count - offset }

    mutating func read<T: FixedWidthInteger>(_: T.Type) throws(EndOfInput) -> T {
        let size = MemoryLayout<T>.size
        guard remaining >= size else { throw EndOfInput() }
        // One unaligned load: `copyMemory` into a local called `memcpy` for every field.
        let value = bytes.loadUnaligned(fromByteOffset: offset, as: T.self)
        offset += size
        return T(littleEndian: value)
    }

    mutating func readSlice(_ count: Int) throws(EndOfInput) -> UnsafeRawBufferPointer {
        guard remaining >= count else { throw EndOfInput() }
        defer { offset += count }
        return UnsafeRawBufferPointer(rebasing: bytes[offset..<offset + count])
    }

    mutating func readRest() -> UnsafeRawBufferPointer {
        defer { offset = bytes.count }
        return UnsafeRawBufferPointer(rebasing: bytes[offset...])
    }
}

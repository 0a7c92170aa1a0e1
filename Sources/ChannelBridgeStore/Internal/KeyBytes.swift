/// A key's UTF-8 bytes hashed and compared in place, for the lookups that find a key by its bytes
/// without building a `String` (`RecentValues`, `KeyBytesIndex`).
///
/// The hash is a multiplicative one, cheap and not seeded: keys that share it (even on purpose)
/// cost those keys the lookup by bytes, after which they are looked up as a `String` in the
/// document's index, whose hashing is seeded. Neither lookup ever gives a wrong answer for them.
enum KeyBytes {
    /// A hash of `key`'s bytes, read eight at a time and the last ones in one word of
    /// overlapping loads (`lastWord`).
    static func hash(_ key: UnsafeRawBufferPointer) -> UInt64 {
        let multiplier: UInt64 = 0x9E37_79B9_7F4A_7C15
        let count = key.count
        var hash = UInt64(truncatingIfNeeded: count) &* multiplier
        guard let start = key.baseAddress else { return hash }
        var offset = 0
        while offset + 8 < count {
            hash = (hash ^ start.loadUnaligned(fromByteOffset: offset, as: UInt64.self)) &* multiplier
            hash ^= hash >> 29
            offset += 8
        }
        return (hash ^ lastWord(start, count: count)) &* multiplier
    }

    /// Whether the `count` (at least 1) bytes at `a` and at `b` are the same: eight at a time,
    /// the last ones as `lastWord` reads them (which covers every byte of a short run).
    static func equal(_ a: UnsafeRawPointer, _ b: UnsafeRawPointer, count: Int) -> Bool {
        var offset = 0
        while offset + 8 < count {
            if a.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
                != b.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
            {
                return false
            }
            offset += 8
        }
        return lastWord(a, count: count) == lastWord(b, count: count)
    }

    /// The last bytes of the `count` (at least 1) at `start` as one word, in at most two loads:
    /// the last eight when there are that many, else two overlapping halves of what there is.
    @inline(__always)
    private static func lastWord(_ start: UnsafeRawPointer, count: Int) -> UInt64 {
        if count >= 8 { return start.loadUnaligned(fromByteOffset: count - 8, as: UInt64.self) }
        if count >= 4 {
            let low = UInt64(start.loadUnaligned(as: UInt32.self))
            return low | UInt64(start.loadUnaligned(fromByteOffset: count - 4, as: UInt32.self)) << 32
        }
        if count >= 2 {
            let low = UInt64(start.loadUnaligned(as: UInt16.self))
            return low | UInt64(start.loadUnaligned(fromByteOffset: count - 2, as: UInt16.self)) << 16
        }
        return UInt64(start.load(as: UInt8.self))
    }
}

/// A string that is equal to another, and hashes, by its UTF-8 code units: the identity of a
/// preference key, an app group name, a map key or a coalescing key.
///
/// Swift's `String` compares by canonical equivalence, so `"\u{E9}"` and `"e\u{301}"` are one
/// `String` and one dictionary key; Dart (by UTF-16 code units), Java, `NSUserDefaults`, a JSON
/// file and a directory name all see two. For valid Unicode (every Swift `String`), equal UTF-8
/// code units and equal UTF-16 code units are the same relation. Nothing is normalized.
///
/// The static `equal` and `hash` serve code that keeps plain `String`s (arrays, enum payloads).
package struct CodeUnitString: Hashable, Sendable, CustomStringConvertible {
    package var string: String

    @inlinable
    package init(_ string: String) {
        self.string = string
    }

    package var description: String { string }

    @inlinable
    package static func == (lhs: CodeUnitString, rhs: CodeUnitString) -> Bool {
        equal(lhs.string, rhs.string)
    }

    @inlinable
    package func hash(into hasher: inout Hasher) {
        Self.hash(string, into: &hasher)
    }

    /// Whether `a` and `b` have the same UTF-8 code units. The lengths come first (constant time
    /// for native strings), then the bytes in place, eight at a time.
    @inlinable
    package static func equal(_ a: String, _ b: String) -> Bool {
        // The same representation is the same code units: a string compared with itself (one
        // storage object) or a small string with the same bytes, without opening either.
        if unsafeBitCast(a, to: (UInt64, UInt64).self) == unsafeBitCast(b, to: (UInt64, UInt64).self) { return true }
        guard a.utf8.count == b.utf8.count else { return false }
        let inPlace = a.utf8.withContiguousStorageIfAvailable { x in
            b.utf8.withContiguousStorageIfAvailable { y in sameBytes(x, y) }
        }
        if let inPlace, let inPlace { return inPlace }
        return a.utf8.elementsEqual(b.utf8)
    }

    /// Feeds `string`'s UTF-8 code units to `hasher`, then a terminator that no UTF-8 holds
    /// (as `String` does), so that a key's hash is not a prefix of a longer one's.
    @inlinable
    package static func hash(_ string: String, into hasher: inout Hasher) {
        let hashedInPlace: Void? = string.utf8.withContiguousStorageIfAvailable {
            hasher.combine(bytes: UnsafeRawBufferPointer($0))
        }
        if hashedInPlace == nil {
            Array(string.utf8).withUnsafeBytes { hasher.combine(bytes: $0) }
        }
        hasher.combine(0xFF as UInt8)
    }

    @usableFromInline
    static func sameBytes(_ x: UnsafeBufferPointer<UInt8>, _ y: UnsafeBufferPointer<UInt8>) -> Bool {
        let count = x.count
        guard count == y.count else { return false }
        guard count > 0, let xBase = x.baseAddress, let yBase = y.baseAddress else { return true }
        if xBase == yBase { return true }
        let xRaw = UnsafeRawPointer(xBase)
        let yRaw = UnsafeRawPointer(yBase)
        var offset = 0
        while offset + 8 <= count {
            if xRaw.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
                != yRaw.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
            {
                return false
            }
            offset += 8
        }
        while offset < count {
            if xBase[offset] != yBase[offset] { return false }
            offset += 1
        }
        return true
    }
}

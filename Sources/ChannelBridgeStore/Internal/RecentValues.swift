import ChannelBridgeCodec

/// Values read from a group's cached document, found again by their key's UTF-8 bytes: a repeated
/// get of a warm key costs a cheap hash of those bytes and one comparison, instead of building a
/// `String`, hashing it for the document's index and decoding the value's text once more.
///
/// Each value is remembered with the generation of the document it was read from
/// (`GroupEngine.Cache.generation`, which moves whenever the document does), and is given back only
/// while that generation is still the cached document's: a remembered value is always exactly
/// what the document's index and `StoredDocument.decode` would give now. Whether the document is
/// still the file is for the caller to prove first, as for any cached read.
///
/// Bounds: `slotCount` slots, direct-mapped by the hash; a value remembered in a taken slot
/// replaces what was there. Only keys of at most `maximumKeyLength` bytes and values whose text is
/// at most `maximumTextLength` bytes are remembered (any other read takes the index, as without
/// this), so the whole holds at most `slotCount` short keys and small values. A hash that many
/// keys share (even on purpose) costs those keys the index lookup, nothing else.
struct RecentValues: Sendable {
    /// `slotCount` is `1 << slotBits`: a slot is the hash's top `slotBits` bits.
    static let slotBits = 7
    static let slotCount = 1 << slotBits
    static let maximumKeyLength = 128
    static let maximumTextLength = 256

    private struct Slot: Sendable {
        var generation: UInt64
        var key: [UInt8]
        /// `nil`: the key has no value in that generation.
        var value: StandardValue?
    }

    /// `slotCount` of them once a value is remembered; none before.
    private var slots: [Slot?] = []

    /// How many values are held, of any generation.
    var count: Int { slots.reduce(0) { $0 + ($1 == nil ? 0 : 1) } }

    /// The value remembered for the key whose UTF-8 bytes are `key`, read from the document of
    /// `generation`: `.some(nil)` when the key had no value there; `nil` when none is remembered.
    func value(forKeyUTF8 key: UnsafeRawBufferPointer, generation: UInt64) -> StandardValue?? {
        guard !slots.isEmpty, key.count <= Self.maximumKeyLength else { return nil }
        return slots.withUnsafeBufferPointer { slots -> StandardValue?? in
            guard let slot = slots[Self.slot(of: key)], slot.generation == generation,
                slot.key.count == key.count,
                slot.key.withUnsafeBytes({ Self.sameBytes($0, key) })
            else { return nil }
            return .some(slot.value)
        }
    }

    /// Remembers `value`, `key`'s value in the document of `generation`, when both are small
    /// enough; `textCount` is the length of the value's text in the file.
    mutating func remember(_ value: StandardValue?, textCount: Int, forKey key: String, generation: UInt64) {
        guard textCount <= Self.maximumTextLength, key.utf8.count <= Self.maximumKeyLength else { return }
        let bytes = Array(key.utf8)
        let index = bytes.withUnsafeBytes { Self.slot(of: $0) }
        if slots.isEmpty { slots = [Slot?](repeating: nil, count: Self.slotCount) }
        slots[index] = Slot(generation: generation, key: bytes, value: value)
    }

    /// The slot of `key`: a multiplicative hash of its bytes, eight at a time.
    static func slot(of key: UnsafeRawBufferPointer) -> Int {
        let multiplier: UInt64 = 0x9E37_79B9_7F4A_7C15
        var hash = UInt64(key.count) &* multiplier
        var offset = 0
        while offset + 8 <= key.count {
            hash = (hash ^ key.loadUnaligned(fromByteOffset: offset, as: UInt64.self)) &* multiplier
            hash ^= hash >> 29
            offset += 8
        }
        var tail: UInt64 = 0
        while offset < key.count {
            tail = tail << 8 | UInt64(key[offset])
            offset += 1
        }
        hash = (hash ^ tail) &* multiplier
        return Int(truncatingIfNeeded: hash >> UInt64(64 - slotBits))
    }

    /// Whether `a` and `b`, of one length, hold the same bytes; eight at a time.
    private static func sameBytes(_ a: UnsafeRawBufferPointer, _ b: UnsafeRawBufferPointer) -> Bool {
        var offset = 0
        while offset + 8 <= a.count {
            if a.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
                != b.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
            {
                return false
            }
            offset += 8
        }
        while offset < a.count {
            if a[offset] != b[offset] { return false }
            offset += 1
        }
        return true
    }
}

/// A document's members found by their key's UTF-8 bytes: no `String` built for the key and no
/// seeded hash of it, and one small slot read before the member itself. A lookup in front of
/// `StoredDocument.index`, which stays the authority.
///
/// A slot holds a member's position in `StoredDocument.entries` (`-1`: none). A lookup hashes the
/// key's bytes (`KeyBytes.hash`), reads up to `probeLimit` slots from there, and takes a position
/// only once the member there spells exactly those bytes between its quotes in the file, with no
/// escape (`StoredDocument.member(at:isKeyUTF8:)`). So a position a write left stale, one a
/// compaction renumbered or one a hash shared with other keys displaced never answers for another
/// key, and a key not found here (never inserted, displaced, spelled with escapes in the file, or
/// absent) is looked up in `index`: what the document answers is always what `index` gives.
///
/// Bounds: a power of two of slots, at least four times the members the index was sized for and
/// at least `minimumSlots`, 4 bytes each (16 to 32 bytes a key). A write adds its new members'
/// positions (`insert`); past a quarter full, or after a compaction, the index is built again.
struct KeyBytesIndex: Sendable {
    static let probeLimit = 8
    static let minimumSlots = 64

    private var slots: [Int32] = []
    /// `64 - log2(slots.count)`: a key's first slot is its hash's top bits, the well-mixed ones of
    /// a multiplicative hash.
    private var shift: UInt64 = 64
    /// Positions inserted since the index was built at its size.
    private(set) var filled = 0

    /// How many members the slots are sized for: a quarter of them, so that a probe run seldom
    /// fills (a key displaced from one is found through `index`, at the cost of that lookup).
    var capacity: Int { slots.count / 4 }

    init() {}

    /// Slots for `members` members, none filled.
    init(sizedFor members: Int) {
        var count = Self.minimumSlots
        var bits = Self.minimumSlots.trailingZeroBitCount
        while count < 4 * members {
            count *= 2
            bits += 1
        }
        slots = [Int32](repeating: -1, count: count)
        shift = UInt64(64 - bits)
    }

    /// The member of `key`'s bytes, as `isKey` says for the position each slot holds: the first
    /// slot `isKey` accepts in `key`'s probe run, which ends at an empty slot (no insert placed the
    /// key past one) or after `probeLimit` slots; `nil` when none.
    @inline(__always)
    func position(of key: UnsafeRawBufferPointer, where isKey: (Int) -> Bool) -> Int? {
        guard !slots.isEmpty else { return nil }
        var slot = firstSlot(key)
        return slots.withUnsafeBufferPointer { slots -> Int? in
            let mask = slots.count - 1
            for _ in 0..<Self.probeLimit {
                let held = Int(slots[slot])
                if held < 0 { return nil }
                if isKey(held) { return held }
                slot = (slot + 1) & mask
            }
            return nil
        }
    }

    /// Records that the member at `position` has the key whose bytes are `key`: in the first empty
    /// slot of its probe run, or one whose member `isLive` says is gone, else in the run's first
    /// slot (the key displaced there is then found through `index`).
    mutating func insert(_ key: UnsafeRawBufferPointer, at position: Int, isLive: (Int) -> Bool) {
        guard !slots.isEmpty, position <= Int(Int32.max) else { return }
        let mask = slots.count - 1
        let first = firstSlot(key)
        var chosen = first
        var slot = first
        for _ in 0..<Self.probeLimit {
            let held = slots[slot]
            if held < 0 || !isLive(Int(held)) {
                chosen = slot
                break
            }
            slot = (slot + 1) & mask
        }
        if slots[chosen] < 0 { filled += 1 }
        slots[chosen] = Int32(truncatingIfNeeded: position)
    }

    @inline(__always)
    private func firstSlot(_ key: UnsafeRawBufferPointer) -> Int {
        Int(truncatingIfNeeded: KeyBytes.hash(key) &>> shift)
    }
}

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
/// this), so the whole holds at most `slotCount` values decoded from small texts and
/// `slotCount × maximumKeyLength` (16 KiB) of key bytes, allocated on the first value remembered.
/// A hash that many keys share (even on purpose) costs those keys the index lookup, nothing else.
struct RecentValues: Sendable {
    /// `slotCount` is `1 << slotBits`: a slot is the hash's top `slotBits` bits.
    static let slotBits = 7
    static let slotCount = 1 << slotBits
    static let maximumKeyLength = 128
    static let maximumTextLength = 256

    /// A slot's generation and its key's length (`-1`: empty); its key's bytes are in `keyBytes`
    /// and its value in `values`, at the slot's place. Plain values, so a lookup copies no
    /// reference until it has found its key.
    private struct Header: Sendable {
        var generation: UInt64 = 0
        var keyCount = -1
    }

    /// `slotCount` of each once a value is remembered; none before. `keyBytes` holds
    /// `maximumKeyLength` bytes a slot.
    private var headers: [Header] = []
    private var keyBytes: [UInt8] = []
    /// `nil`: the key has no value in that generation.
    private var values: [StandardValue?] = []

    /// How many values are held, of any generation.
    var count: Int { headers.reduce(0) { $0 + ($1.keyCount < 0 ? 0 : 1) } }

    /// The value remembered for the key whose UTF-8 bytes are `key`, read from the document of
    /// `generation`: `.some(nil)` when the key had no value there; `nil` when none is remembered.
    func value(forKeyUTF8 key: UnsafeRawBufferPointer, generation: UInt64) -> StandardValue?? {
        let count = key.count
        guard count <= Self.maximumKeyLength, !headers.isEmpty else { return nil }
        let index = Self.slot(of: key)
        let header = headers[index]
        guard header.generation == generation, header.keyCount == count else { return nil }
        if count > 0 {
            let same = keyBytes.withUnsafeBytes { bytes in
                KeyBytes.equal(bytes.baseAddress! + index * Self.maximumKeyLength, key.baseAddress!, count: count)
            }
            guard same else { return nil }
        }
        return .some(values[index])
    }

    /// Remembers `value`, `key`'s value in the document of `generation`, when both are small
    /// enough; `textCount` is the length of the value's text in the file.
    mutating func remember(_ value: StandardValue?, textCount: Int, forKey key: String, generation: UInt64) {
        guard textCount <= Self.maximumTextLength, key.utf8.count <= Self.maximumKeyLength else { return }
        if headers.isEmpty {
            headers = [Header](repeating: Header(), count: Self.slotCount)
            keyBytes = [UInt8](repeating: 0, count: Self.slotCount * Self.maximumKeyLength)
            values = [StandardValue?](repeating: nil, count: Self.slotCount)
        }
        var key = key
        key.withUTF8 { utf8 in
            let index = Self.slot(of: UnsafeRawBufferPointer(utf8))
            let start = index * Self.maximumKeyLength
            keyBytes.withUnsafeMutableBytes { bytes in
                UnsafeMutableRawBufferPointer(rebasing: bytes[start..<start + utf8.count])
                    .copyMemory(from: UnsafeRawBufferPointer(utf8))
            }
            headers[index] = Header(generation: generation, keyCount: utf8.count)
            values[index] = value
        }
    }

    /// The slot of `key`: the top `slotBits` bits of its hash (`KeyBytes.hash`).
    static func slot(of key: UnsafeRawBufferPointer) -> Int {
        Int(truncatingIfNeeded: KeyBytes.hash(key) >> UInt64(64 - slotBits))
    }
}

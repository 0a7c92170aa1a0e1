/// The channel names a decoder met last, reused while frames keep naming them: traffic is on few
/// channels, and a name longer than 15 bytes would otherwise be validated and allocated anew for
/// every frame.
struct ChannelNameCache {
    private static let capacity = 4
    private var entries: [(bytes: [UInt8], name: String)] = []
    private var nextSlot = 0

    /// The name whose UTF-8 is exactly `bytes`, if remembered.
    func name(for bytes: UnsafeRawBufferPointer) -> String? {
        for entry in entries where entry.bytes.count == bytes.count {
            let equal = entry.bytes.withUnsafeBytes { known in Self.equal(known, bytes) }
            if equal { return entry.name }
        }
        return nil
    }

    /// Whether two buffers of the same length hold the same bytes, compared eight at a time
    /// (`elementsEqual` goes byte by byte through an iterator: ~15 instructions a byte).
    static func equal(_ a: UnsafeRawBufferPointer, _ b: UnsafeRawBufferPointer) -> Bool {
        let count = a.count
        guard count == b.count else { return false }
        var offset = 0
        while offset + 8 <= count {
            if a.loadUnaligned(fromByteOffset: offset, as: UInt64.self) != b.loadUnaligned(fromByteOffset: offset, as: UInt64.self) {
                return false
            }
            offset += 8
        }
        while offset < count {
            if a[offset] != b[offset] { return false }
            offset += 1
        }
        return true
    }

    /// Remembers a validated name, replacing the oldest when full.
    mutating func remember(_ name: String, bytes: UnsafeRawBufferPointer) {
        let entry = (bytes: Array(bytes), name: name)
        if entries.count < Self.capacity {
            entries.append(entry)
        } else {
            entries[nextSlot] = entry
            nextSlot = (nextSlot + 1) % Self.capacity
        }
    }
}

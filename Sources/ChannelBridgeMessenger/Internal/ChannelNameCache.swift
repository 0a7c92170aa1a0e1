/// The channel names a decoder met last, reused while frames keep naming them: traffic is on few
/// channels, and a name longer than 15 bytes would otherwise be validated and allocated anew for
/// every frame.
struct ChannelNameCache {
    private static let capacity = 4
    private var entries: [(bytes: [UInt8], name: String)] = []
    private var nextSlot = 0

    /// The name whose UTF-8 is exactly `bytes`, if remembered.
    func name(for bytes: UnsafeRawBufferPointer) -> String? {
        // By index: iterating the entries would copy each one out, a retain and a release of
        // its bytes and its name.
        for index in entries.indices where entries[index].bytes.count == bytes.count {
            if entries[index].bytes.withUnsafeBytes({ known in Self.equal(known, bytes) }) {
                return entries[index].name
            }
        }
        return nil
    }

    /// Whether two buffers of the same length hold the same bytes, compared eight at a time
    /// (`elementsEqual` goes byte by byte through an iterator).
    static func equal(_ a: UnsafeRawBufferPointer, _ b: UnsafeRawBufferPointer) -> Bool {
        let count = a.count
        guard count == b.count else { return false }
        guard count >= 8 else {
            var offset = 0
            while offset < count {
                if a[offset] != b[offset] { return false }
                offset += 1
            }
            return true
        }
        var offset = 0
        while offset + 8 <= count {
            if a.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
                != b.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
            {
                return false
            }
            offset += 8
        }
        // The last bytes as the last eight, overlapping what was compared: one load, not a loop.
        guard offset < count else { return true }
        return a.loadUnaligned(fromByteOffset: count - 8, as: UInt64.self)
            == b.loadUnaligned(fromByteOffset: count - 8, as: UInt64.self)
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

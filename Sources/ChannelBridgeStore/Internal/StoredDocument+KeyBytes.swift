/// Members found by their key's UTF-8 bytes (`KeyBytesIndex`): how a get of a key not read lately
/// reaches its value text without a `String` for the key or a seeded hash of it.
extension StoredDocument {
    /// The value text of the key whose UTF-8 bytes are `key` when `keyBytesIndex` finds its
    /// member; `nil` when it does not, and then `valueText(forKey:)` tells (the key may still be
    /// there, spelled with escapes or displaced from the index's slots).
    func valueText(forKeyUTF8 key: UnsafeRawBufferPointer) -> ArraySlice<UInt8>? {
        guard Self.isPlainKey(key) else { return nil }
        let position = bytes.withUnsafeBytes { raw in
            entries.withUnsafeBufferPointer { entries in
                keyBytesIndex.position(of: key) { position in
                    position < entries.count && Self.member(entries[position], in: raw, isKeyUTF8: key)
                }
            }
        }
        guard let position else { return nil }
        let entry = entries[position]
        return bytes[entry.valueStart..<entry.end]
    }

    /// Whether the member `entry` spells exactly `key`'s bytes between its quotes. `key` is plain
    /// (`isPlainKey`), so the file's text is the key itself: no byte of it escapes another or
    /// ends the string early.
    static func member(_ entry: Entry, in raw: UnsafeRawBufferPointer, isKeyUTF8 key: UnsafeRawBufferPointer) -> Bool {
        guard !entry.isRemoved else { return false }
        let start = entry.start + 1
        let count = key.count
        guard start + count < entry.valueStart, raw[start + count] == UInt8(ascii: "\"") else { return false }
        return KeyBytes.equal(raw.baseAddress! + start, key.baseAddress!, count: count)
    }

    /// Whether `key` is at least one byte long and has no quote or backslash: a key the file can
    /// spell as its bytes, which are then all there is between the member's quotes.
    static func isPlainKey(_ key: UnsafeRawBufferPointer) -> Bool {
        let count = key.count
        guard count > 0 else { return false }
        var index = 0
        while index < count {
            let byte = key[index]
            if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") { return false }
            index += 1
        }
        return true
    }

    /// The bytes between the quotes of the member `entry`'s key when the file spells it without
    /// an escape; `nil` otherwise.
    static func plainKeyText(of entry: Entry, in raw: UnsafeRawBufferPointer) -> UnsafeRawBufferPointer? {
        var end = entry.start + 1
        while end < entry.valueStart {
            switch raw[end] {
            case UInt8(ascii: "\""):
                return end > entry.start + 1 ? UnsafeRawBufferPointer(rebasing: raw[entry.start + 1..<end]) : nil
            case UInt8(ascii: "\\"): return nil
            default: end += 1
            }
        }
        return nil
    }

    /// Builds `keyBytesIndex` again, sized for the members there are now, from every live member
    /// whose key the file spells without an escape.
    mutating func indexKeyBytes() {
        var built = KeyBytesIndex(sizedFor: index.count)
        bytes.withUnsafeBytes { raw in
            for (position, entry) in entries.enumerated() where !entry.isRemoved {
                guard let key = Self.plainKeyText(of: entry, in: raw) else { continue }
                built.insert(key, at: position, isLive: { _ in true })
            }
        }
        keyBytesIndex = built
    }

    /// Adds the members a write added (`key` at `position`, in the entries the document has now)
    /// to `keyBytesIndex`, or builds it again once it is past a quarter full.
    mutating func indexKeyBytes(added: [(key: String, position: Int)]) {
        guard index.count <= keyBytesIndex.capacity, keyBytesIndex.filled + added.count <= keyBytesIndex.capacity else {
            indexKeyBytes()
            return
        }
        let entries = self.entries
        for (key, position) in added {
            var key = key
            key.withUTF8 { utf8 in
                let key = UnsafeRawBufferPointer(utf8)
                guard Self.isPlainKey(key) else { return }
                keyBytesIndex.insert(key, at: position, isLive: { $0 < entries.count && !entries[$0].isRemoved })
            }
        }
    }
}

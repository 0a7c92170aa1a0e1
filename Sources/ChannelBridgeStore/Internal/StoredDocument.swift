import ChannelBridgeCodec

/// A preferences file as this process last read or wrote it: the file's bytes exactly, and where
/// in them each key's member (`"key": value`) is. Nothing is decoded until asked for.
///
/// This is the store's cache and its encoder's input at once. A read looks the key up and decodes
/// that one value; a write copies every unchanged member's bytes as they are and encodes only the
/// values it changes, so no write re-encodes the group (Protocol/store.md, "Costs"). Memory is the
/// file's size plus about 24 bytes a key for `entries`, one dictionary entry a key for `index` and
/// 16 to 32 bytes a key for `keyBytesIndex`.
struct StoredDocument: Sendable {
    /// One member of `values`: byte offsets into `bytes`, 32 bits each (files are limited to
    /// `maximumSize`), 12 bytes a key. A removed member stays as a tombstone until there are many,
    /// so positions in `index` stay valid across writes.
    struct Entry: Sendable, Equatable {
        private let startOffset: Int32
        private let valueOffset: Int32
        private let endOffset: Int32

        init(start: Int, valueStart: Int, end: Int) {
            startOffset = Int32(truncatingIfNeeded: start)
            valueOffset = Int32(truncatingIfNeeded: valueStart)
            endOffset = Int32(truncatingIfNeeded: end)
        }

        /// The member's first byte (the key's opening quote).
        var start: Int { Int(startOffset) }
        /// The value's first byte.
        var valueStart: Int { Int(valueOffset) }
        /// One past the value's last byte.
        var end: Int { Int(endOffset) }

        static let removed = Entry(start: -1, valueStart: -1, end: -1)
        var isRemoved: Bool { startOffset < 0 }

        /// The same member `shift` bytes further on; a tombstone stays one.
        func shifted(by shift: Int) -> Entry {
            isRemoved ? self : Entry(start: start + shift, valueStart: valueStart + shift, end: end + shift)
        }
    }

    /// The largest preferences file this store reads or writes (offsets are 32-bit).
    static let maximumSize = Int(Int32.max)

    /// The file's bytes (empty for a group with no file).
    var bytes: [UInt8] = []
    /// Every member of `values`, in file order, tombstones included.
    var entries: [Entry] = []
    /// Key → position in `entries`, for every live member. Keys are told apart by code units,
    /// as the file and Dart tell them apart: `"\u{E9}"` and `"e\u{301}"` are two members.
    var index: [CodeUnitString: Int] = [:]
    /// The live members again, found by their key's UTF-8 bytes where the file spells the key as
    /// they are (`StoredDocument+KeyBytes`); `index` answers for every other key.
    var keyBytesIndex = KeyBytesIndex()
    /// How many of `entries` are tombstones.
    var tombstones = 0
    var changeLog: ChangeLog?
    /// What the latest takes made with a request id returned.
    var takeReceipts = TakeReceipts()
    /// Top-level members this version does not know, as their exact text, kept by a rewrite.
    var otherMembers: [(key: String, text: [UInt8])] = []

    /// The document of a group that has no preferences file.
    static let empty = StoredDocument()

    var count: Int { index.count }

    /// The TVN text of `key`'s value, as stored.
    func valueText(forKey key: String) -> ArraySlice<UInt8>? {
        guard let position = index[CodeUnitString(key)] else { return nil }
        let entry = entries[position]
        return bytes[entry.valueStart..<entry.end]
    }

    /// The member text (`"key": value`) up to the value, for rewriting the value only.
    func memberPrefix(at position: Int) -> ArraySlice<UInt8> {
        let entry = entries[position]
        return bytes[entry.start..<entry.valueStart]
    }

    /// What lies between two members in the layout this store writes (Protocol/store.md's example).
    static let memberSeparator: [UInt8] = Array(",\n    ".utf8)

    /// The members from the live one at `position` up to (not including) `limit` that can be
    /// copied as one piece of `bytes`, tombstones among them included: each live one after the
    /// first follows the previous live one with exactly `memberSeparator` between them. Returns
    /// the position after the last of them, one past the last live one's last byte, and how many
    /// of them are tombstones.
    func unchangedRun(from position: Int, before limit: Int) -> (positions: Int, end: Int, tombstones: Int) {
        var end = entries[position].end
        var next = position + 1
        var tombstones = 0
        // The separator as a four-byte and a two-byte word, compared with two loads.
        let (head, tail) = Self.memberSeparator.withUnsafeBytes {
            ($0.loadUnaligned(as: UInt32.self), $0.loadUnaligned(fromByteOffset: 4, as: UInt16.self))
        }
        bytes.withUnsafeBytes { raw in
            entries.withUnsafeBufferPointer { entries in
                while next < limit {
                    let entry = entries[next]
                    if entry.isRemoved {
                        tombstones += 1
                        next += 1
                        continue
                    }
                    guard entry.start == end + 6,
                        raw.loadUnaligned(fromByteOffset: end, as: UInt32.self) == head,
                        raw.loadUnaligned(fromByteOffset: end + 4, as: UInt16.self) == tail
                    else { break }
                    end = entry.end
                    next += 1
                }
            }
        }
        return (next, end, tombstones)
    }

    /// Every live key in file order.
    func orderedKeys() -> [String] {
        var slots = [String?](repeating: nil, count: entries.count)
        for (key, position) in index { slots[position] = key.string }
        return slots.compactMap { $0 }
    }

    /// Decodes `key`'s value; `nil` when there is none.
    func value(forKey key: String, path: String) throws(StoreError) -> StandardValue? {
        guard let text = valueText(forKey: key) else { return nil }
        return try Self.decode(text, key: key, path: path)
    }

    /// Every key and value in file order.
    func allValues(path: String) throws(StoreError) -> [PreferenceEntry] {
        var result: [PreferenceEntry] = []
        result.reserveCapacity(count)
        for key in orderedKeys() {
            result.append(
                PreferenceEntry(key: key, value: try Self.decode(valueText(forKey: key)!, key: key, path: path)))
        }
        return result
    }

    /// The string whose TVN text is `text` when that text is a JSON string without escapes, the
    /// commonest value: its bytes between the quotes (checked as JSON when the file was read, or
    /// written by this store), read as the codec reads a String. `nil` for any other text.
    static func unescapedString(_ text: UnsafeRawBufferPointer) -> String? {
        let count = text.count
        guard count >= 2, text[0] == UInt8(ascii: "\""), text[count - 1] == UInt8(ascii: "\"") else { return nil }
        let inner = UnsafeRawBufferPointer(rebasing: text[1..<count - 1])
        guard !containsBackslash(inner) else { return nil }
        return StandardReader.string(utf8: inner)
    }

    /// Whether any of `bytes` is a backslash: eight at a time, a word's bytes equal to it found
    /// as zero bytes of the word XOR eight backslashes; the last ones in one overlapping word.
    static func containsBackslash(_ bytes: UnsafeRawBufferPointer) -> Bool {
        let count = bytes.count
        guard count >= 8 else { return bytes.contains(UInt8(ascii: "\\")) }
        @inline(__always)
        func hasBackslash(_ word: UInt64) -> Bool {
            let x = word ^ 0x5C5C_5C5C_5C5C_5C5C
            return (x &- 0x0101_0101_0101_0101) & ~x & 0x8080_8080_8080_8080 != 0
        }
        var offset = 0
        while offset + 8 <= count {
            if hasBackslash(bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self)) { return true }
            offset += 8
        }
        return offset < count && hasBackslash(bytes.loadUnaligned(fromByteOffset: count - 8, as: UInt64.self))
    }

    /// JSON nesting the reader allows a value: the document's limit of 1,000 less the two levels
    /// of the document and `values` around it.
    static let valueDepthLimit = 998

    /// Decodes one value's TVN text. The scanner checked every value when the file was read and
    /// the store writes only values it checked, so a failure here means the bytes were damaged.
    static func decode(_ text: ArraySlice<UInt8>, key: String, path: String) throws(StoreError) -> StandardValue {
        if let string = text.withUnsafeBytes(unescapedString) { return .string(string) }
        do {
            return try text.withUnsafeBytes { bytes throws(CodecError) in
                if let scalar = ScalarValueText.value(of: bytes) { return scalar }
                return try TypedValueNotation.value(from: try JSONValue.parse(in: bytes, maxDepth: valueDepthLimit))
            }
        } catch {
            throw StoreError(
                .corruptFile,
                "preferences file '\(path)': the value of key '\(key)' is not typed value notation: \(error)",
                path: path)
        }
    }
}

extension StoredDocument {
    /// Takes a write's result in: new bytes and entries, and the keys that left or joined `index`.
    /// `index` changes in place, so the caller must hold the only copy of this document.
    ///
    /// The new bytes and entries come in `buffers`, which get this document's old ones back for
    /// the next write to reuse: a group's large arrays are allocated once, not once per write.
    mutating func apply(_ commit: DocumentEdit.Result, buffers: inout DocumentEdit.Buffers) {
        swap(&bytes, &buffers.bytes)
        swap(&entries, &buffers.entries)
        tombstones = commit.tombstones
        changeLog = commit.changeLog
        takeReceipts = commit.takeReceipts
        for key in commit.removedKeys { index.removeValue(forKey: CodeUnitString(key)) }
        for (key, position) in commit.addedKeys { index[CodeUnitString(key)] = position }
        if tombstones > max(1_024, index.count) {
            compact()
            indexKeyBytes()
        } else {
            indexKeyBytes(added: commit.addedKeys)
        }
    }

    /// Drops the tombstones, renumbering `index` (linear; done once tombstones outnumber keys).
    private mutating func compact() {
        var newPosition = [Int](repeating: -1, count: entries.count)
        var kept: [Entry] = []
        kept.reserveCapacity(entries.count - tombstones)
        for (position, entry) in entries.enumerated() where !entry.isRemoved {
            newPosition[position] = kept.count
            kept.append(entry)
        }
        entries = kept
        tombstones = 0
        for (key, position) in index { index[key] = newPosition[position] }
    }
}

extension StoredDocument {
    /// The keys a watcher that last saw `old` reports on seeing `self`, each once: every key a
    /// write since `old` touched (from the change log), then every key whose value differs and
    /// every key that disappeared (which covers writers that keep no log and writes older than the
    /// log reaches). When the log reaches back to `old` and moved on, it alone names every write.
    func changedKeys(since old: StoredDocument) -> [String] {
        var touched: [String] = []
        var seen = Set<CodeUnitString>()
        func touch(_ key: String) {
            if seen.insert(CodeUnitString(key)).inserted { touched.append(key) }
        }
        var logIsComplete = false
        if let log = changeLog {
            let oldSeq = old.changeLog?.seq ?? 0
            // A sequence number that went backwards means the log was started again: all of it is new.
            let since = log.seq >= oldSeq ? oldSeq : 0
            for commit in log.commits where commit.seq > since {
                commit.keys.forEach(touch)
            }
            // Every write from since+1 to seq is in the log, and there was at least one.
            logIsComplete =
                old.changeLog != nil && log.seq > since
                && (log.commits.first?.seq ?? .max) <= since + 1
        }
        if logIsComplete { return touched }
        for key in orderedKeys() {
            guard let text = valueText(forKey: key) else { continue }
            if let oldText = old.valueText(forKey: key), oldText.elementsEqual(text) { continue }
            // Different bytes may still be the same value (another writer's spacing).
            if let oldText = old.valueText(forKey: key),
                let before = try? Self.decode(oldText, key: key, path: ""),
                let after = try? Self.decode(text, key: key, path: ""), before == after
            {
                continue
            }
            touch(key)
        }
        for key in old.orderedKeys() where index[CodeUnitString(key)] == nil { touch(key) }
        return touched
    }
}

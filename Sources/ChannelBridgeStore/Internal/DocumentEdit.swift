import ChannelBridgeCodec

/// The writes of one group commit, applied in order on top of the document they start from, and
/// then written out as the new file.
///
/// The base document is not touched: if the durable replace fails, the cache still holds the
/// file as it is. Changed values are kept as their TVN text; `result()` copies every unchanged
/// member's bytes as they are, so the cost of a commit is one pass of `memcpy` over the file plus
/// the encoding of the values it changed.
struct DocumentEdit {
    let base: StoredDocument
    let path: String
    /// Base members changed by this edit, by position: the new value text, or `nil` for removed.
    private var replaced: [Int: [UInt8]?] = [:]
    /// Keys that are not live in the base (new, or removed and stored again), in the order stored.
    private var added: [(key: String, value: [UInt8]?)] = []
    /// Keys here and in `written` are told apart by code units, as `StoredDocument.index` does.
    private var addedPosition: [CodeUnitString: Int] = [:]
    /// Every key written, in the order first written (the change log's commit and the change events).
    private(set) var writtenKeys: [String] = []
    private var written = Set<CodeUnitString>()
    /// The receipts of takes made with a request id, as the new file will hold them.
    private(set) var takeReceipts: TakeReceipts

    init(base: StoredDocument, path: String) {
        self.base = base
        self.path = path
        takeReceipts = base.takeReceipts
    }

    var hasWrites: Bool { !writtenKeys.isEmpty }

    /// The value text `key` has at this point of the edit.
    func valueText(forKey key: String) -> ArraySlice<UInt8>? {
        let identity = CodeUnitString(key)
        if let position = addedPosition[identity] { return added[position].value.map { $0[...] } }
        guard let position = base.index[identity] else { return nil }
        if let change = replaced[position] { return change.map { $0[...] } }
        return base.valueText(forKey: key)
    }

    /// The decoded value `key` has at this point of the edit.
    func value(forKey key: String) throws(StoreError) -> StandardValue? {
        guard let text = valueText(forKey: key) else { return nil }
        return try StoredDocument.decode(text, key: key, path: path)
    }

    /// Stores `text` (canonical TVN, already checked) under `key`; `nil` removes it. Removing a
    /// key that is not there writes nothing. Returns whether anything was written.
    @discardableResult
    mutating func set(_ key: String, text: [UInt8]?) -> Bool {
        let identity = CodeUnitString(key)
        if let position = addedPosition[identity] {
            if let text {
                added[position].value = text
            } else {
                // Removed again in the same commit: a later store goes last once more.
                added[position].value = nil
                addedPosition[identity] = nil
            }
        } else if let position = base.index[identity], replaced[position] != .some(nil) {
            replaced[position] = .some(text)
        } else if let text {
            addedPosition[identity] = added.count
            added.append((key, text))
        } else {
            return false
        }
        if written.insert(identity).inserted { writtenKeys.append(key) }
        return true
    }

    /// Takes `key` for the take with request id `id`: the value its receipt recorded when that
    /// take was made already (nothing is written again), else the key's value, removed and
    /// recorded under `id` in the same write. An absent key is recorded nowhere: a retry of that
    /// take takes afresh, and so loses nothing.
    mutating func take(_ key: String, requestID id: String) throws(StoreError) -> StandardValue? {
        if let receipt = takeReceipts.receipt(forID: id) {
            return try StoredDocument.decode(receipt.valueText[...], key: receipt.key, path: path)
        }
        guard let text = valueText(forKey: key) else { return nil }
        let value = try StoredDocument.decode(text, key: key, path: path)
        takeReceipts.record(.init(id: id, key: key, valueText: Array(text)))
        set(key, text: nil)
        return value
    }

    /// Removes every key; returns whether there was any.
    @discardableResult
    mutating func removeAll() -> Bool {
        var any = false
        for key in base.orderedKeys() where valueText(forKey: key) != nil { any = set(key, text: nil) || any }
        for (key, value) in added where value != nil && addedPosition[CodeUnitString(key)] != nil {
            any = set(key, text: nil) || any
        }
        return any
    }

    /// Where a commit builds the new file's bytes and entries. Kept between commits (the previous
    /// document's arrays) so that their capacity is reused.
    struct Buffers: Sendable {
        var bytes: [UInt8] = []
        var entries: [StoredDocument.Entry] = []
    }

    /// A finished edit: what the cached document needs, besides the buffers, to match the file.
    struct Result: Sendable {
        var tombstones: Int
        var changeLog: ChangeLog
        var removedKeys: [String]
        var addedKeys: [(key: String, position: Int)]
        var writtenKeys: [String]
        var takeReceipts: TakeReceipts
    }

    /// The new file, built in `buffers`: the layout of Protocol/store.md's example (one member per
    /// line), unchanged members copied byte for byte, and one change-log commit naming every key
    /// written.
    ///
    /// Throws `invalidValue` when the file would exceed `StoredDocument.maximumSize`.
    func result(into buffers: inout Buffers) throws(StoreError) -> Result {
        var log = base.changeLog ?? ChangeLog(seq: 0, commits: [])
        log.record(writtenKeys)
        var out = buffers.bytes
        var entries = buffers.entries
        buffers = Buffers()  // `out` and `entries` are the only references: reused in place
        out.removeAll(keepingCapacity: true)
        entries.removeAll(keepingCapacity: true)
        var logText: [UInt8] = []
        log.write(into: &logText)
        var receiptsText: [UInt8] = []
        if !takeReceipts.isEmpty { takeReceipts.write(into: &receiptsText) }
        // The base's bytes hold its log and every value this edit replaces: an upper bound.
        let estimate =
            base.bytes.count + logText.count + receiptsText.count
            + added.reduce(64) { $0 + $1.key.utf8.count + ($1.value?.count ?? 0) + 16 }
            + replaced.values.reduce(0) { $0 + ($1?.count ?? 0) }
        guard estimate <= StoredDocument.maximumSize else {
            throw StoreError(
                .invalidValue, "the preferences file '\(path)' would grow past \(StoredDocument.maximumSize) bytes",
                path: path)
        }
        // With room to grow, so that the two arrays a group alternates between are allocated
        // once, not again each time the file grows by a few bytes.
        if out.capacity < estimate { out.reserveCapacity(estimate + estimate / 8 + 4_096) }
        out.append(contentsOf: "{\n  \"version\": 1,\n  \"values\": {".utf8)
        let entryCount = base.entries.count + added.count
        if entries.capacity < entryCount { entries.reserveCapacity(entryCount + entryCount / 8 + 64) }
        var tombstones = 0
        var removedKeys: [String] = []
        var addedKeys: [(key: String, position: Int)] = []
        var first = true

        func beginMember() -> Int {
            out.append(contentsOf: first ? "\n    ".utf8 : ",\n    ".utf8)
            first = false
            return out.count
        }

        let changedPositions = replaced.keys.sorted()
        var nextChange = 0
        var position = 0
        while position < base.entries.count {
            let entry = base.entries[position]
            if entry.isRemoved {
                entries.append(.removed)
                tombstones += 1
                position += 1
                continue
            }
            if nextChange < changedPositions.count, changedPositions[nextChange] == position {
                nextChange += 1
                position += 1
                guard let text = replaced[position - 1]! else {
                    entries.append(.removed)
                    tombstones += 1
                    continue
                }
                let start = beginMember()
                out.append(contentsOf: base.memberPrefix(at: position - 1))
                let valueStart = out.count
                out.append(contentsOf: text)
                entries.append(.init(start: start, valueStart: valueStart, end: out.count))
                continue
            }
            // The unchanged members from here to the next change, copied in one piece as far as
            // the base has them in our layout (per member, the copies and appends cost
            // more than the bytes; with many keys they dominate a commit's CPU time).
            let limit = nextChange < changedPositions.count ? changedPositions[nextChange] : base.entries.count
            let run = base.unchangedRun(from: position, before: limit)
            let start = beginMember()
            out.append(contentsOf: base.bytes[entry.start..<run.end])
            let shift = start - entry.start
            let first = entries.count
            entries.append(contentsOf: base.entries[position..<run.positions])
            if shift != 0 {
                entries.withUnsafeMutableBufferPointer { entries in
                    for index in first..<entries.count { entries[index] = entries[index].shifted(by: shift) }
                }
            }
            tombstones += run.tombstones
            position = run.positions
        }
        // Positions do not carry keys; the keys written do.
        for key in writtenKeys {
            if let position = base.index[CodeUnitString(key)], replaced[position] == .some(nil) {
                removedKeys.append(key)
            }
        }
        for (key, value) in added {
            guard let value else { continue }
            let start = beginMember()
            out.append(contentsOf: JSONValue.string(key).text.utf8)
            out.append(contentsOf: ": ".utf8)
            let valueStart = out.count
            out.append(contentsOf: value)
            addedKeys.append((key, entries.count))
            entries.append(.init(start: start, valueStart: valueStart, end: out.count))
        }
        out.append(contentsOf: (first ? "}" : "\n  }").utf8)
        out.append(contentsOf: ",\n  \"changeLog\": ".utf8)
        out.append(contentsOf: logText)
        if !receiptsText.isEmpty {
            out.append(contentsOf: ",\n  \"takeReceipts\": ".utf8)
            out.append(contentsOf: receiptsText)
        }
        for member in base.otherMembers {
            out.append(contentsOf: ",\n  ".utf8)
            out.append(contentsOf: JSONValue.string(member.key).text.utf8)
            out.append(contentsOf: ": ".utf8)
            out.append(contentsOf: member.text)
        }
        out.append(contentsOf: "\n}\n".utf8)
        buffers = Buffers(bytes: out, entries: entries)
        return Result(
            tombstones: tombstones, changeLog: log, removedKeys: removedKeys, addedKeys: addedKeys,
            writtenKeys: writtenKeys, takeReceipts: takeReceipts)
    }
}

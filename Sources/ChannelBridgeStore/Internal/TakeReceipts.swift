import ChannelBridgeCodec

/// The `takeReceipts` member of `preferences.json`: what the latest takes made with a request id
/// returned, written in the same durable replace as the removal, so a take retried after its
/// reply was lost (the caller's connection or the host died) returns the same value once more
/// instead of taking again (Protocol/store.md, "Takes that can be retried").
struct TakeReceipts: Sendable, Equatable {
    struct Receipt: Sendable, Equatable {
        var id: String
        var key: String
        /// The taken value's TVN text, as it was stored.
        var valueText: [UInt8]

        /// Ids and keys compare by code units, as `receipt(forID:)` and the store match them.
        static func == (lhs: Receipt, rhs: Receipt) -> Bool {
            CodeUnitString.equal(lhs.id, rhs.id) && CodeUnitString.equal(lhs.key, rhs.key)
                && lhs.valueText == rhs.valueText
        }
    }

    /// How many receipts a group keeps; the oldest goes first.
    static let maximumCount = 32
    /// The longest request id, in UTF-8 bytes.
    static let maximumIDLength = 128

    /// Oldest first.
    var receipts: [Receipt] = []

    var isEmpty: Bool { receipts.isEmpty }

    /// The receipt of the take made with `id`, if it is still kept.
    func receipt(forID id: String) -> Receipt? {
        // Dart compares strings by code units; so do we (not by canonical equivalence).
        receipts.last { CodeUnitString.equal($0.id, id) }
    }

    mutating func record(_ receipt: Receipt) {
        receipts.append(receipt)
        if receipts.count > Self.maximumCount { receipts.removeFirst(receipts.count - Self.maximumCount) }
    }

    /// Refuses an id a file could not keep: empty or longer than `maximumIDLength`.
    static func check(id: String) throws(StoreError) {
        guard !id.isEmpty, id.utf8.count <= maximumIDLength else {
            throw StoreError(
                .invalidValue,
                "a take's request id must be 1 to \(maximumIDLength) bytes of UTF-8, got \(id.utf8.count)")
        }
    }

    /// Appends the member's JSON text (`[{"id":…,"key":…,"value":…},…]`) to `out`.
    func write(into out: inout [UInt8]) {
        out.append(UInt8(ascii: "["))
        for (index, receipt) in receipts.enumerated() {
            out.append(contentsOf: (index == 0 ? "\n    {\"id\": " : ",\n    {\"id\": ").utf8)
            JSONWriter.writeString(receipt.id, into: &out)
            out.append(contentsOf: ", \"key\": ".utf8)
            JSONWriter.writeString(receipt.key, into: &out)
            out.append(contentsOf: ", \"value\": ".utf8)
            out.append(contentsOf: receipt.valueText)
            out.append(UInt8(ascii: "}"))
        }
        out.append(contentsOf: (receipts.isEmpty ? "]" : "\n  ]").utf8)
    }

    /// Reads the member; `nil` for anything malformed (a receipt that is not an object with a
    /// string `id` and `key` and a TVN `value`), which drops every receipt: receipts only make a
    /// retry return what was taken, and must never make the values unreadable.
    init?(json: JSONValue) {
        guard case .array(let items) = json else { return nil }
        for item in items {
            guard case .string(let id)? = item["id"], case .string(let key)? = item["key"], let value = item["value"],
                (try? TypedValueNotation.value(from: value)) != nil
            else { return nil }
            receipts.append(Receipt(id: id, key: key, valueText: Array(value.text.utf8)))
        }
        if receipts.count > Self.maximumCount { receipts.removeFirst(receipts.count - Self.maximumCount) }
    }

    init() {}
}

/// This side's requests waiting for their reply, by request id, without hashing in the common case
/// (issue 18: two hashes of the id per call were about 300 instructions).
///
/// Ids are handed out in sequence, so the calls in flight at one time usually have ids within a
/// short stretch: each goes to slot `id & mask` of a table of at most `maxSlots` slots, which
/// doubles while it is more than half full. An id whose slot is taken by another call (a call far
/// older than the rest, or more in flight than the table holds) goes to a dictionary beside it.
/// Bound: the slots take at most `maxSlots` entries (about 40 KiB), whatever the traffic; the
/// dictionary holds only what does not fit, and every entry is a call this side is waiting on.
struct PendingCalls<Call> {
    static var initialSlots: Int { 16 }
    static var maxSlots: Int { 1_024 }

    private var slots: [(id: UInt32, call: Call)?] = []
    private var overflow: [UInt32: Call] = [:]
    private(set) var count = 0

    var isEmpty: Bool { count == 0 }

    /// Registers `call` as `id`; false (and nothing changes) when `id` is already in flight.
    mutating func insert(_ call: consuming Call, id: UInt32) -> Bool {
        if slots.isEmpty { slots = Array(repeating: nil, count: Self.initialSlots) }
        else if count >= slots.count / 2, slots.count < Self.maxSlots { grow() }
        let index = Int(id) & (slots.count - 1)
        if let takenID = slots[index]?.id {
            if takenID == id || overflow[id] != nil { return false }
            overflow[id] = call
        } else {
            if !overflow.isEmpty, overflow[id] != nil { return false }
            // Moved in, not copied: no retain of the call's references (issue 18).
            slots[index] = (id, call)
        }
        count += 1
        return true
    }

    /// Takes call `id` out, if it is in flight.
    mutating func remove(_ id: UInt32) -> Call? {
        guard count > 0 else { return nil }
        let index = Int(id) & (slots.count - 1)
        if slots[index]?.id == id, let taken = slots[index].take() {
            // Moved out, leaving the slot empty: no copy of the call to retain and release.
            count -= 1
            return taken.call
        }
        guard !overflow.isEmpty, let call = overflow.removeValue(forKey: id) else { return nil }
        count -= 1
        return call
    }

    /// Takes out every call `belongs` picks, with its id.
    mutating func removeAll(where belongs: (Call) -> Bool) -> [(id: UInt32, call: Call)] {
        var taken: [(id: UInt32, call: Call)] = []
        for index in slots.indices {
            if let entry = slots[index], belongs(entry.call) {
                taken.append(entry)
                slots[index] = nil
            }
        }
        for (id, call) in overflow where belongs(call) { taken.append((id, call)) }
        for entry in taken where overflow[entry.id] != nil { overflow[entry.id] = nil }
        count -= taken.count
        return taken
    }

    /// Takes out every call.
    mutating func removeAll() -> [Call] {
        defer { self = PendingCalls() }
        return slots.compactMap { $0?.call } + overflow.values
    }

    /// Twice the slots; calls whose new slot is taken stay in (or go to) the dictionary.
    private mutating func grow() {
        let old = slots
        slots = Array(repeating: nil, count: old.count * 2)
        let mask = slots.count - 1
        for case let entry? in old {
            let index = Int(entry.id) & mask
            if slots[index] == nil { slots[index] = entry } else { overflow[entry.id] = entry.call }
        }
    }
}

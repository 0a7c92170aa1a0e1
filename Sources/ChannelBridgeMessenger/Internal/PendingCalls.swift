/// This side's requests waiting for their reply, by request id, without hashing in the common case
/// (a dictionary would hash the id twice per call).
///
/// Ids are handed out in sequence, so the calls in flight at one time usually have ids within a
/// short stretch: each goes to slot `id & mask` of a table of at most `maxSlots` slots, which
/// doubles while it is more than half full. An id whose slot is taken by another call (a call far
/// older than the rest, or more in flight than the table holds) goes to a dictionary beside it.
/// Bound: the slots take at most `maxSlots` entries (about 40 KiB), whatever the traffic; the
/// dictionary holds only what does not fit, and every entry is a call this side is waiting on.
///
/// A slot is two arrays, ids and calls, rather than one of `(id, call)?`: taking a call out of an
/// optional tuple copies the call and destroys the slot (retains and releases of its references),
/// while an optional call swaps out whole. Id 0, which
/// no request has (wire protocol §2.2), marks an empty slot.
///
/// A call made while no other is in flight (one call at a time, the common case of a caller that
/// awaits each reply) goes to a slot of its own, `solo`, outside the arrays: moving it in and out
/// checks no array's uniqueness and computes no index.
struct PendingCalls<Call> {
    static var initialSlots: Int { 16 }
    static var maxSlots: Int { 1_024 }

    /// The id of the call in `solo`, 0 for none.
    private var soloID: UInt32 = 0
    /// A call inserted while the table was empty; nil exactly when `soloID` is 0.
    private var solo: Call?

    /// The id in each slot, 0 for none.
    private var ids: [UInt32] = []
    /// The call in each slot, nil exactly when its id is 0.
    private var calls: [Call?] = []
    private var overflow: [UInt32: Call] = [:]
    private(set) var count = 0

    var isEmpty: Bool { count == 0 }

    /// Where `insert` put a call.
    enum Insertion: Equatable {
        /// In the solo slot: no other call was in flight.
        case solo
        /// In the table (or its overflow), beside other calls.
        case table
        /// Nowhere: the id was already in flight, and nothing changed.
        case idInFlight
    }

    /// Registers `call` as `id` (never 0).
    mutating func insert(_ call: consuming Call, id: UInt32) -> Insertion {
        precondition(id != 0, "request id 0 is reserved")
        if count == 0 {
            soloID = id
            solo = consume call
            count = 1
            return .solo
        }
        if soloID == id { return .idInFlight }
        if ids.isEmpty {
            ids = Array(repeating: 0, count: Self.initialSlots)
            calls = Array(repeating: nil, count: Self.initialSlots)
        } else if count >= ids.count / 2, ids.count < Self.maxSlots {
            grow()
        }
        let index = Int(id) & (ids.count - 1)
        let takenID = ids[index]
        if takenID != 0 {
            if takenID == id || overflow[id] != nil { return .idInFlight }
            overflow[id] = call
        } else {
            if !overflow.isEmpty, overflow[id] != nil { return .idInFlight }
            // Moved in, not copied: no retain of the call's references.
            ids[index] = id
            calls[index] = consume call
        }
        count += 1
        return .table
    }

    /// Takes call `id` out, if it is in flight.
    mutating func remove(_ id: UInt32) -> Call? {
        guard count > 0 else { return nil }
        if soloID == id {
            var taken: Call?
            swap(&taken, &solo)
            soloID = 0
            count -= 1
            return taken
        }
        guard !ids.isEmpty else { return nil }
        let index = Int(id) & (ids.count - 1)
        if ids[index] == id {
            // Swapped out, leaving the slot empty: no copy of the call to retain and release.
            var taken: Call?
            swap(&taken, &calls[index])
            ids[index] = 0
            count -= 1
            return taken
        }
        guard !overflow.isEmpty, let call = overflow.removeValue(forKey: id) else { return nil }
        count -= 1
        return call
    }

    /// Changes call `id` in place; false when it is not in flight.
    mutating func update(_ id: UInt32, _ change: (inout Call) -> Void) -> Bool {
        guard count > 0 else { return false }
        if soloID == id {
            change(&solo!)
            return true
        }
        guard !ids.isEmpty else { return false }
        let index = Int(id) & (ids.count - 1)
        if ids[index] == id {
            change(&calls[index]!)
            return true
        }
        guard !overflow.isEmpty, overflow[id] != nil else { return false }
        change(&overflow[id]!)
        return true
    }

    /// Takes out every call `belongs` picks, with its id.
    mutating func removeAll(where belongs: (Call) -> Bool) -> [(id: UInt32, call: Call)] {
        var taken: [(id: UInt32, call: Call)] = []
        if soloID != 0, let call = solo, belongs(call) {
            taken.append((soloID, call))
            soloID = 0
            solo = nil
        }
        for index in ids.indices where ids[index] != 0 {
            if let call = calls[index], belongs(call) {
                taken.append((ids[index], call))
                ids[index] = 0
                calls[index] = nil
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
        return (solo.map { [$0] } ?? []) + calls.compactMap { $0 } + overflow.values
    }

    /// Twice the slots; calls whose new slot is taken stay in (or go to) the dictionary.
    private mutating func grow() {
        let (oldIDs, oldCalls) = (ids, calls)
        ids = Array(repeating: 0, count: oldIDs.count * 2)
        calls = Array(repeating: nil, count: oldIDs.count * 2)
        let mask = ids.count - 1
        for (id, call) in zip(oldIDs, oldCalls) {
            guard id != 0, let call else { continue }
            let index = Int(id) & mask
            if ids[index] == 0 {
                ids[index] = id
                calls[index] = call
            } else {
                overflow[id] = call
            }
        }
    }
}

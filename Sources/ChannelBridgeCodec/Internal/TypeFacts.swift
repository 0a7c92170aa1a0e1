import Synchronization

/// What the encoder learns about a type once and remembers, because asking again costs more than
/// encoding a small struct: whether it is a dictionary (a conformance lookup in the runtime
/// each time) and how many fields it had (so its map is allocated once
/// at the right size instead of grown 8, 16, 32).
///
/// Two small direct-mapped tables of atomic words, shared by every encoder in the process: a slot
/// is a single word, so readers and writers need no lock, and a slot overwritten by another type
/// only costs that type a lookup again. Nothing is ever allocated after the first use.
enum TypeFacts {
    private static let slotCount = 256

    /// Types known not to be dictionaries, by identity: exact, so a dictionary is never mistaken
    /// for a struct.
    private static let notDictionaries = makeTable()
    /// Map sizes by type: a type's identity in the high bits, the count in the low 16. A wrong
    /// guess (two types sharing high bits) only sizes an array badly.
    private static let capacities = makeTable()

    /// Allocated once, never freed, each slot initialized before the pointer is published by the
    /// thread-safe lazy initialization of a static.
    // @unchecked: the table is written once, before a static's thread-safe lazy initialization publishes it, and only read after.
    private struct Table: @unchecked Sendable {
        let slots: UnsafeMutablePointer<Atomic<UInt>>
    }

    private static func makeTable() -> Table {
        let slots = UnsafeMutablePointer<Atomic<UInt>>.allocate(capacity: slotCount)
        for index in 0..<slotCount { (slots + index).initialize(to: Atomic(0)) }
        return Table(slots: slots)
    }

    private static func identity(_ type: Any.Type) -> UInt {
        UInt(bitPattern: ObjectIdentifier(type))
    }

    private static func slot(_ identity: UInt) -> Int {
        Int(truncatingIfNeeded: (identity >> 4) ^ (identity >> 12)) & (slotCount - 1)
    }

    static func isKnownNotDictionary(_ type: Any.Type) -> Bool {
        let id = identity(type)
        return notDictionaries.slots[slot(id)].load(ordering: .relaxed) == id
    }

    static func recordNotDictionary(_ type: Any.Type) {
        let id = identity(type)
        notDictionaries.slots[slot(id)].store(id, ordering: .relaxed)
    }

    static func mapCapacity(of type: Any.Type) -> Int {
        let id = identity(type)
        let word = capacities.slots[slot(id)].load(ordering: .relaxed)
        return word >> 16 == id & (UInt.max >> 16) ? Int(word & 0xFFFF) : 0
    }

    static func recordMapCapacity(_ count: Int, of type: Any.Type) {
        guard count > 0 else { return }
        let id = identity(type)
        capacities.slots[slot(id)].store((id << 16) | UInt(min(count, 0xFFFF)), ordering: .relaxed)
    }
}

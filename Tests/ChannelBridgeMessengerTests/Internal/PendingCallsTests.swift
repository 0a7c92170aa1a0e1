@testable import ChannelBridgeMessenger
import ChannelBridgeTestSupport
import Testing

/// The table of calls waiting for their reply: slots by id, a dictionary for what does not fit.
@Suite struct PendingCallsTests {
    @Test func sequentialIdsInsertFindAndRemove() {
        var table = PendingCalls<Int>()
        for id in UInt32(1)...3_000 {
            do { let insertion = table.insert(Int(id), id: id); #expect(insertion == (id == 1 ? .solo : .table)) }
        }
        #expect(table.count == 3_000)
        // Removed in another order than inserted, each exactly once.
        for id in stride(from: UInt32(3_000), through: 1, by: -1) { #expect(table.remove(id) == Int(id)) }
        #expect(table.isEmpty)
        do { let removed = table.remove(7); #expect(removed == nil) }
    }

    @Test func anIdInFlightIsRefusedWhereverItSits() {
        var table = PendingCalls<Int>()
        do { let insertion = table.insert(1, id: 5); #expect(insertion == .solo) }
        do { let insertion = table.insert(2, id: 5); #expect(insertion == .idInFlight) }
        // 5 + 16 takes the same slot of the first table: it goes beside, and is refused there too.
        do { let insertion = table.insert(3, id: 21); #expect(insertion == .table) }
        do { let insertion = table.insert(4, id: 21); #expect(insertion == .idInFlight) }
        #expect(table.count == 2)
        do { let removed = table.remove(21); #expect(removed == 3) }
        do { let removed = table.remove(5); #expect(removed == 1) }
        #expect(table.isEmpty)
    }

    /// An old call far behind the others (ids that share a slot at every size) is kept and found.
    @Test func anOldCallFarBehindTheRestIsKept() {
        var table = PendingCalls<Int>()
        do { let insertion = table.insert(-1, id: 1); #expect(insertion == .solo) }
        for id in UInt32(1 + (1 << 20))..<UInt32(1 + (1 << 20) + 2_000) {
            do { let insertion = table.insert(Int(id), id: id); #expect(insertion == .table) }
        }
        do { let removed = table.remove(1); #expect(removed == -1) }
        for id in UInt32(1 + (1 << 20))..<UInt32(1 + (1 << 20) + 2_000) { #expect(table.remove(id) == Int(id)) }
        #expect(table.isEmpty)
    }

    @Test func removeAllWherePicksFromSlotsAndTheDictionary() {
        var table = PendingCalls<Int>()
        for id in UInt32(1)...10 { _ = table.insert(Int(id), id: id) }
        _ = table.insert(100, id: 1 + 16)  // beside the slots
        let odd = table.removeAll { $0 % 2 == 1 }
        #expect(Set(odd.map(\.id)) == [1, 3, 5, 7, 9])
        #expect(table.count == 6)
        let rest = table.removeAll()
        #expect(Set(rest) == [2, 4, 6, 8, 10, 100])
        #expect(table.isEmpty)
    }

    /// A call made with nothing else in flight sits in the solo slot; one made beside it goes to
    /// the table, and each is found, updated, refused when its id is reused, and taken out.
    @Test func aLoneCallAndTheCallsBesideIt() {
        var table = PendingCalls<Int>()
        do { let insertion = table.insert(1, id: 5); #expect(insertion == .solo) }
        do { let insertion = table.insert(2, id: 5); #expect(insertion == .idInFlight) }
        // 5 + 16 would share 5's slot in the table; the table is empty, so it goes there.
        do { let insertion = table.insert(3, id: 21); #expect(insertion == .table) }
        do { let insertion = table.insert(4, id: 21); #expect(insertion == .idInFlight) }
        do { let updated = table.update(5) { $0 += 10 }; #expect(updated) }
        do { let updated = table.update(21) { $0 += 10 }; #expect(updated) }
        do { let updated = table.update(6) { $0 += 10 }; #expect(!updated) }
        do { let removed = table.remove(5); #expect(removed == 11) }
        do { let removed = table.remove(5); #expect(removed == nil) }
        // With one call still in flight, the next goes to the table too, and 5 is free again.
        do { let insertion = table.insert(6, id: 5); #expect(insertion == .table) }
        #expect(table.count == 2)
        let taken = table.removeAll { $0 == 6 }
        #expect(taken.map(\.id) == [5])
        #expect(table.removeAll() == [13])
        #expect(table.isEmpty)
    }

    /// Random inserts, updates and removals, against a dictionary: every path (the solo slot, the
    /// slots, the dictionary beside them, growing) agrees with it at every step.
    @Test(arguments: 0..<6) func agreesWithADictionaryUnderRandomUse(seed: UInt64) {
        var random = SeededGenerator(seed: seed)
        var table = PendingCalls<Int>()
        var model: [UInt32: Int] = [:]
        var nextID: UInt32 = 1
        for step in 0..<4_000 {
            switch Int.random(in: 0..<10, using: &random) {
            case 0..<4:
                // Mostly the next id; sometimes one far ahead, or one already in flight.
                let id: UInt32 =
                    switch Int.random(in: 0..<8, using: &random) {
                    case 0: nextID &+ UInt32.random(in: 1...5_000, using: &random)
                    case 1: model.keys.randomElement(using: &random) ?? nextID
                    default: nextID
                    }
                nextID = max(nextID, id &+ 1)
                let insertion = table.insert(step, id: id)
                #expect(insertion == (model[id] != nil ? .idInFlight : model.isEmpty ? .solo : .table))
                if insertion != .idInFlight { model[id] = step }
            case 4:
                let id = model.keys.randomElement(using: &random) ?? 1
                let updated = table.update(id) { $0 = -step }
                #expect(updated == (model[id] != nil))
                if updated { model[id] = -step }
            case 5:
                let parity = Int.random(in: 0...1, using: &random)
                let taken = table.removeAll { abs($0) % 7 == parity }
                #expect(
                    Dictionary(uniqueKeysWithValues: taken.map { ($0.id, $0.call) })
                        == model.filter { abs($0.value) % 7 == parity })
                model = model.filter { abs($0.value) % 7 != parity }
            default:
                let id =
                    Bool.random(using: &random)
                    ? (model.keys.randomElement(using: &random) ?? 1) : UInt32.random(in: 1...nextID, using: &random)
                #expect(table.remove(id) == model.removeValue(forKey: id))
            }
            #expect(table.count == model.count)
        }
        #expect(Set(table.removeAll()) == Set(model.values))
        #expect(table.isEmpty)
    }
}

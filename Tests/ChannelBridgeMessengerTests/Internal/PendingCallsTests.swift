@testable import ChannelBridgeMessenger
import Testing

/// The table of calls waiting for their reply: slots by id, a dictionary for what does not fit.
@Suite struct PendingCallsTests {
    @Test func sequentialIdsInsertFindAndRemove() {
        var table = PendingCalls<Int>()
        for id in UInt32(1)...3_000 { do { let inserted = table.insert(Int(id), id: id); #expect(inserted) } }
        #expect(table.count == 3_000)
        // Removed in another order than inserted, each exactly once.
        for id in stride(from: UInt32(3_000), through: 1, by: -1) { #expect(table.remove(id) == Int(id)) }
        #expect(table.isEmpty)
        do { let removed = table.remove(7); #expect(removed == nil) }
    }

    @Test func anIdInFlightIsRefusedWhereverItSits() {
        var table = PendingCalls<Int>()
        do { let inserted = table.insert(1, id: 5); #expect(inserted) }
        do { let inserted = table.insert(2, id: 5); #expect(!inserted) }
        // 5 + 16 takes the same slot of the first table: it goes beside, and is refused there too.
        do { let inserted = table.insert(3, id: 21); #expect(inserted) }
        do { let inserted = table.insert(4, id: 21); #expect(!inserted) }
        #expect(table.count == 2)
        do { let removed = table.remove(21); #expect(removed == 3) }
        do { let removed = table.remove(5); #expect(removed == 1) }
        #expect(table.isEmpty)
    }

    /// An old call far behind the others (ids that share a slot at every size) is kept and found.
    @Test func anOldCallFarBehindTheRestIsKept() {
        var table = PendingCalls<Int>()
        do { let inserted = table.insert(-1, id: 1); #expect(inserted) }
        for id in UInt32(1 + (1 << 20))..<UInt32(1 + (1 << 20) + 2_000) { do { let inserted = table.insert(Int(id), id: id); #expect(inserted) } }
        do { let removed = table.remove(1); #expect(removed == -1) }
        for id in UInt32(1 + (1 << 20))..<UInt32(1 + (1 << 20) + 2_000) { #expect(table.remove(id) == Int(id)) }
        #expect(table.isEmpty)
    }

    @Test func removeAllWherePicksFromSlotsAndTheDictionary() {
        var table = PendingCalls<Int>()
        for id in UInt32(1)...10 { _ = table.insert(Int(id), id: id) }
        _ = table.insert(100, id: 1 + 16)   // beside the slots
        let odd = table.removeAll { $0 % 2 == 1 }
        #expect(Set(odd.map(\.id)) == [1, 3, 5, 7, 9])
        #expect(table.count == 6)
        let rest = table.removeAll()
        #expect(Set(rest) == [2, 4, 6, 8, 10, 100])
        #expect(table.isEmpty)
    }
}

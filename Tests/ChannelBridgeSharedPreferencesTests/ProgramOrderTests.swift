import ChannelBridgeChannels
import ChannelBridgeCodec
import ChannelBridgeMessenger
import ChannelBridgeSharedPreferences
import ChannelBridgeStore
import ChannelBridgeTestSupport
import Synchronization
import Testing

/// A session's calls take effect in the order they arrived, even when the caller sends the next
/// one before the previous one's reply (as Dart does with a `Future` it does not await).
///
/// Calls are sent back to back with `Task.immediate`: the in-memory messenger delivers a request
/// and starts its handler on the sending thread, so each request has reached the plugin before
/// the next is sent. `setAppGroup` (answered at once, without the store) is the barrier: once its
/// reply is back, every request sent before it has been received and its handler started.
@Suite struct ProgramOrderTests {
    /// Sends `method` without waiting for its reply.
    @discardableResult
    func send(
        _ session: PreferencesSession, _ method: String, _ arguments: StandardValue = .null
    )
        -> Task<StandardValue, any Error>
    {
        Task.immediate { try await session.call(method, arguments) }
    }

    func barrier(_ session: PreferencesSession) async throws {
        try await session.call("setAppGroup", ["appGroup": "group.local"])
    }

    @Test func aGetSentRightAfterASetWaitsForItAndSeesIt() async throws {
        let store = GatedStore(holding: ["k"])
        try await store.base.set("old", forKey: "k")
        let session = try await PreferencesSession.start(provider: store)
        defer { session.close() }
        try await withHangGuard { () async throws in
            let set = send(session, "setString", ["key": "k", "value": "new"])
            let get = send(session, "getString", ["key": "k"])
            #expect(await store.started.next() == "set k")
            try await barrier(session)
            // The get has arrived but has not touched the store: the set is not done.
            #expect(store.entries == ["set k"])
            store.gate.open()
            #expect(try await get.value == "new")
            #expect(try await set.value == .null)
            #expect(store.entries == ["set k", "set k done", "get k", "get k done"])
        }
    }

    @Test func aSetSentRightAfterAGetWaitsForItAndIsNotSeenByIt() async throws {
        let store = GatedStore(holding: ["k"])
        try await store.base.set("old", forKey: "k")
        let session = try await PreferencesSession.start(provider: store)
        defer { session.close() }
        try await withHangGuard { () async throws in
            let get = send(session, "getString", ["key": "k"])
            let remove = send(session, "remove", ["key": "k"])
            #expect(await store.started.next() == "get k")
            try await barrier(session)
            #expect(store.entries == ["get k"])
            store.gate.open()
            #expect(try await get.value == "old")
            #expect(try await remove.value == .null)
            #expect(store.entries == ["get k", "get k done", "remove k", "remove k done"])
            #expect(try await store.base.value(forKey: "k") == nil)
        }
    }

    /// A get the store can answer at once is answered on arrival when nothing of the session is
    /// pending, and waits like any other when a write is.
    @Test func aGetAnsweredAtOnceOnlyWhenNoEarlierWriteIsPending() async throws {
        let store = GatedStore(holding: ["held"])
        try await store.base.set("old", forKey: "free")
        let session = try await PreferencesSession.start(provider: store)
        defer { session.close() }
        try await withHangGuard { () async throws in
            #expect(try await session.call("getString", ["key": "free"]) == "old")
            #expect(store.entries == ["get free at once"])
            let held = send(session, "setString", ["key": "held", "value": "x"])
            let set = send(session, "setString", ["key": "free", "value": "new"])
            let get = send(session, "getString", ["key": "free"])
            try await barrier(session)
            #expect(store.entries == ["get free at once", "set held", "set free", "set free done"])
            store.gate.open()
            #expect(try await get.value == "new")
            _ = try await (held.value, set.value)
            #expect(store.entries.suffix(2) == ["get free", "get free done"])
        }
    }

    /// Writes in a row do not wait for each other: each goes to the store as it arrives, in
    /// order, so the store can commit them together.
    @Test func writesInARowReachTheStoreAtOnceInOrder() async throws {
        let store = GatedStore(holding: ["a", "b", "c"])
        let session = try await PreferencesSession.start(provider: store)
        defer { session.close() }
        try await withHangGuard { () async throws in
            let writes = [
                send(session, "setString", ["key": "a", "value": "1"]),
                send(session, "appendToList", ["key": "b", "values": ["x"]]),
                send(session, "take", ["key": "c"]),
            ]
            let get = send(session, "get", ["key": "a"])
            try await barrier(session)
            #expect(store.entries == ["set a", "update b", "take c"])
            store.gate.open()
            for write in writes { _ = try await write.value }
            #expect(try await get.value == "1")
            #expect(store.entries.suffix(2) == ["get a", "get a done"])
        }
    }

    /// The session ends or the caller cancels while its call waits for its turn: the operation
    /// never starts, and the calls after it go on.
    @Test func aCancelledOperationThatIsStillWaitingNeverStarts() async throws {
        let store = GatedStore(holding: ["a"])
        let session = try await PreferencesSession.start(provider: store)
        defer { session.close() }
        try await withHangGuard { () async throws in
            let first = send(session, "setString", ["key": "a", "value": "1"])  // held in the store
            let read = send(session, "getString", ["key": "a"])  // waits for the write
            let cancelled = send(session, "setString", ["key": "b", "value": "2"])  // waits for the read
            let after = send(session, "getString", ["key": "b"])  // waits for the write
            #expect(await store.started.next() == "set a")
            cancelled.cancel()  // the client withdraws the call: a CANCEL frame
            try await barrier(session)
            store.gate.open()
            #expect(try await first.value == .null)
            #expect(try await read.value == "1")
            await #expect(throws: CancellationError.self) { try await cancelled.value }
            #expect(try await after.value == .null)
            #expect(!store.entries.contains("set b"))
            #expect(try await store.base.value(forKey: "b") == nil)
        }
    }

    /// A long queue of alternating sets and gets behind a held write: once released, each get
    /// sees the set just before it and no later one.
    @Test func aLongQueueOfAlternatingSetsAndGetsDrainsInOrder() async throws {
        let store = GatedStore(holding: ["held"])
        let session = try await PreferencesSession.start(provider: store)
        defer { session.close() }
        try await withHangGuard { () async throws in
            let held = send(session, "setString", ["key": "held", "value": "x"])
            var gets: [(Int, Task<StandardValue, any Error>)] = []
            for index in 0..<2_000 {
                send(session, "setInt", ["key": "n", "value": .int64(Int64(index))])
                gets.append((index, send(session, "getInt", ["key": "n"])))
            }
            store.gate.open()
            _ = try await held.value
            for (index, get) in gets {
                #expect(try await get.value == .int64(Int64(index)), "get \(index)")
            }
        }
    }

    /// Calls refused before they reach the store are answered at once; they hold nothing up.
    @Test func aRefusedCallIsAnsweredWithoutWaitingForItsTurn() async throws {
        let store = GatedStore(holding: ["a"])
        let session = try await PreferencesSession.start(provider: store)
        defer { session.close() }
        try await withHangGuard { () async throws in
            let held = send(session, "setString", ["key": "a", "value": "1"])
            let error = await #expect(throws: MethodError.self) {
                try await session.call("appendToList", ["key": "a", "values": "not a list"])
            }
            #expect(error?.code == "INVALID_ARGUMENTS")
            store.gate.open()
            _ = try await held.value
        }
    }

    /// A get the store answers at once runs as its request is delivered, with no task started for
    /// it (the plugin is an `ImmediateMethodCallDelegate`). Delivered here by a thread
    /// that is no task, as a socket's reader thread delivers it; a task per request would show.
    @Test func aGetAnsweredAtOnceStartsNoTask() async throws {
        let store = GatedStore(holding: [])
        try await store.base.set("v", forKey: "free")
        let session = try await PreferencesSession.start(provider: store)
        defer { session.close() }
        let call = try StandardMethodCodec().encodeMethodCall(MethodCall("getString", arguments: ["key": "free"]))
        // An id the client never used: the client drops the reply.
        let frame = try FrameEncoder.encode(
            .request(id: 4_242, channel: SharedPreferenceAppGroupPlugin.channelName, payload: call))
        await onThread { session.host.receive(frame) }
        #expect(store.entries == ["get free at once"])
        #expect(store.cachedReadsRanInATask == [false])
    }
}

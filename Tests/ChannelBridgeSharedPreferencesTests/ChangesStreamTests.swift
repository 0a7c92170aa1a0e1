import ChannelBridgeChannels
import ChannelBridgeCodec
import ChannelBridgeStore
import ChannelBridgeTestSupport
import Testing
import ChannelBridgePlugins

private func change(_ key: String, _ value: StandardValue) -> EventChannel.Event {
    .success(["key": .string(key), "value": value])
}

/// `shared_preference_app_group/changes`: every write to the listened group, as `{key, value}`.
@Suite struct ChangesStreamTests {
    @Test func setsRemovesAndRemoveAllAreStreamed() async throws {
        let provider = ObservedStoreProvider()
        let session = try await PreferencesSession.start(provider: provider)
        defer { session.close() }
        try await withHangGuard { () async throws in
            var events = session.changes.receiveBroadcastStream(arguments: ["appGroup": "group.local"])
                .makeAsyncIterator()
            #expect(await provider.signals.next() == .subscribed("group.local"))
            try await session.call("setString", ["key": "a", "value": "x"])
            try await session.call("setInt", ["key": "b", "value": .int64(1)])
            try await session.call("setString", ["key": "a", "value": "x"])  // same value: still a change
            try await session.call("remove", ["key": "a"])
            try await session.call("remove", ["key": "a"])  // absent: writes nothing, no event
            try await session.call("setBytes", ["key": "c", "value": .uint8List([9])])
            try await session.call("removeAll")
            #expect(try await events.next() == change("a", "x"))
            #expect(try await events.next() == change("b", .int64(1)))
            #expect(try await events.next() == change("a", "x"))
            #expect(try await events.next() == change("a", nil))
            #expect(try await events.next() == change("c", .uint8List([9])))
            #expect(try await events.next() == change("b", nil))  // one event per key removed
            #expect(try await events.next() == change("c", nil))
        }
    }

    @Test func writesByOthersReachTheListener() async throws {
        let provider = ObservedStoreProvider()
        let listener = try await PreferencesSession.start(provider: provider, entitled: ["group.a", "group.b"])
        defer { listener.close() }
        let writer = try await PreferencesSession.start(provider: provider, entitled: ["group.a", "group.b"])
        defer { writer.close() }
        try await withHangGuard { () async throws in
            // The listener never chose a group for its method channel: the stream names its own.
            var events = listener.changes.receiveBroadcastStream(arguments: ["appGroup": "group.b"]).makeAsyncIterator()
            #expect(await provider.signals.next() == .subscribed("group.b"))
            try await writer.call("setAppGroup", ["appGroup": "group.a"])
            try await writer.call("setString", ["key": "k", "value": "in a"])  // another group: not seen
            try await writer.call("setAppGroup", ["appGroup": "group.b"])
            try await writer.call("setString", ["key": "k", "value": "from the other session"])
            try await provider.group("group.b").set(.int32(5), forKey: "direct")  // the store used directly
            #expect(try await events.next() == change("k", "from the other session"))
            #expect(try await events.next() == change("direct", .int32(5)))
        }
    }

    @Test func keysLimitTheEvents() async throws {
        let provider = ObservedStoreProvider()
        let session = try await PreferencesSession.start(provider: provider)
        defer { session.close() }
        try await withHangGuard { () async throws in
            let arguments: StandardValue = ["appGroup": "group.local", "keys": ["b", "d"]]
            var events = session.changes.receiveBroadcastStream(arguments: arguments).makeAsyncIterator()
            #expect(await provider.signals.next() == .subscribed("group.local"))
            for key in ["a", "b", "c", "d"] {
                try await session.call("setString", ["key": .string(key), "value": .string(key.uppercased())])
            }
            try await session.call("removeAll")
            #expect(try await events.next() == change("b", "B"))
            #expect(try await events.next() == change("d", "D"))
            #expect(try await events.next() == change("b", nil))
            #expect(try await events.next() == change("d", nil))
        }
    }

    @Test func anUnentitledGroupIsRefused() async throws {
        let provider = ObservedStoreProvider()
        let session = try await PreferencesSession.start(provider: provider, entitled: ["group.a", "group.b"])
        defer { session.close() }
        try await withHangGuard { () async throws in
            await #expect(throws: notEntitled("group.evil", entitled: ["group.a", "group.b"])) {
                for try await _ in session.changes.receiveBroadcastStream(arguments: ["appGroup": "group.evil"]) {}
            }
            #expect(provider.signals.waiting.isEmpty)  // the store was never asked
        }
    }

    @Test func listenArgumentsAreChecked() async throws {
        let session = try await PreferencesSession.start(provider: ObservedStoreProvider())
        defer { session.close() }
        try await withHangGuard { () async throws in
            await #expect(
                throws: invalidArguments(
                    "listen", "appGroup", "the argument 'appGroup' must be a String, got int (int32)")
            ) {
                for try await _ in session.changes.receiveBroadcastStream(arguments: ["appGroup": 1]) {}
            }
            await #expect(
                throws: invalidArguments("listen", nil, "the arguments must be a map with 'appGroup', got String")
            ) {
                for try await _ in session.changes.receiveBroadcastStream(arguments: "group.local") {}
            }
            await #expect(
                throws: invalidArguments(
                    "listen", "keys", "the argument 'keys' must be a List<String> or null, got String")
            ) {
                for try await _ in session.changes.receiveBroadcastStream(arguments: [
                    "appGroup": "group.local", "keys": "a",
                ]) {}
            }
        }
    }

    /// A listen that names no group follows the session's, as the methods do: the default (the only
    /// entitled group), else the one chosen with `setAppGroup`, else none.
    @Test func aListenWithoutAGroupUsesTheSessionsGroup() async throws {
        let provider = ObservedStoreProvider()
        let single = try await PreferencesSession.start(provider: provider)
        defer { single.close() }
        let several = try await PreferencesSession.start(provider: provider, entitled: ["group.a", "group.b"])
        defer { several.close() }
        try await withHangGuard { () async throws in
            var events = single.changes.receiveBroadcastStream(arguments: ["keys": ["k"]]).makeAsyncIterator()
            #expect(await provider.signals.next() == .subscribed("group.local"))
            try await single.call("setString", ["key": "k", "value": "v"])
            #expect(try await events.next() == change("k", "v"))

            await #expect(throws: appGroupHasNotBeenSet("listen", entitled: ["group.a", "group.b"])) {
                for try await _ in several.changes.receiveBroadcastStream() {}
            }
            try await several.call("setAppGroup", ["appGroup": "group.b"])
            var chosen = several.changes.receiveBroadcastStream(arguments: ["appGroup": nil]).makeAsyncIterator()
            #expect(await provider.signals.next() == .subscribed("group.b"))
            try await several.call("setInt", ["key": "n", "value": 1])
            #expect(try await chosen.next() == change("n", 1))
        }
    }

    @Test func cancellingStopsTheStoreSubscription() async throws {
        let provider = ObservedStoreProvider()
        let session = try await PreferencesSession.start(provider: provider)
        defer { session.close() }
        try await withHangGuard { () async throws in
            let received = Inbox<EventChannel.Event>()
            let stream = session.changes.receiveBroadcastStream(arguments: ["appGroup": "group.local"])
            let consumer = Task {
                for try await event in stream { received.put(event) }
            }
            #expect(await provider.signals.next() == .subscribed("group.local"))
            try await session.call("setString", ["key": "a", "value": "1"])
            #expect(await received.next() == change("a", "1"))
            consumer.cancel()  // the listener sends `cancel`
            #expect(await provider.signals.next() == .ended("group.local"))
            _ = await consumer.result
            // The method channel still serves, and listening again works.
            var events = session.changes.receiveBroadcastStream(arguments: ["appGroup": "group.local"])
                .makeAsyncIterator()
            #expect(await provider.signals.next() == .subscribed("group.local"))
            try await session.call("setString", ["key": "a", "value": "2"])
            #expect(try await events.next() == change("a", "2"))
        }
    }

    @Test func tearingDownTheRegistryEndsTheStream() async throws {
        let provider = ObservedStoreProvider()
        let session = try await PreferencesSession.start(provider: provider)
        defer { session.close() }
        try await withHangGuard { () async throws in
            var events = session.changes.receiveBroadcastStream(arguments: ["appGroup": "group.local"])
                .makeAsyncIterator()
            #expect(await provider.signals.next() == .subscribed("group.local"))
            await session.registry.tearDown()
            #expect(try await events.next() == nil)
            #expect(await provider.signals.next() == .ended("group.local"))
            let error = try await #require(throws: ChannelError.self) { try await session.call("getAll") }
            #expect(error.code == .notImplemented)
        }
    }

    @Test func closingTheSessionStopsTheStoreSubscription() async throws {
        let provider = ObservedStoreProvider()
        let session = try await PreferencesSession.start(provider: provider)
        try await withHangGuard { () async throws in
            let stream = session.changes.receiveBroadcastStream(arguments: ["appGroup": "group.local"])
            var events = stream.makeAsyncIterator()
            #expect(await provider.signals.next() == .subscribed("group.local"))
            session.close()
            #expect(await provider.signals.next() == .ended("group.local"))
            _ = try? await events.next()
        }
    }
}

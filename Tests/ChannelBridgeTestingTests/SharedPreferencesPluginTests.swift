import ChannelBridgeChannels
import ChannelBridgeCodec
import ChannelBridgePlugins
import ChannelBridgeSharedPreferences
import ChannelBridgeStore
import ChannelBridgeTestSupport
import ChannelBridgeTesting
import Testing

private let preferences = "shared_preference_app_group"
private let changes = "shared_preference_app_group/changes"

/// The real `shared_preference_app_group` plugin, registered on a `TestMessenger` with in-memory app
/// groups: no socket, no file. The test drives it as a client would and asserts the recorded exchange.
@Suite struct SharedPreferencesPluginTests {
    /// The plugin registered on a test messenger, entitled to `group.a` and `group.b`.
    private func start() async throws -> (TestMessenger, InMemoryAppGroupStore, PluginRegistry) {
        let store = InMemoryAppGroupStore()
        var environment = PluginEnvironment()
        environment.preferenceStoreProvider = store
        environment.entitledAppGroups = ["group.a", "group.b"]
        let test = TestMessenger()
        let registry = PluginRegistry(messenger: test.messenger, environment: environment)
        try await registry.register(SharedPreferenceAppGroupPlugin.self)
        return (test, store, registry)
    }

    /// The plugin's refusal, written out here rather than taken from the plugin.
    private func notEntitled(_ group: String) -> MethodError {
        MethodError(
            code: "APP_GROUP_NOT_ENTITLED",
            message: "Not entitled to the app group '\(group)' (entitled app groups: group.a, group.b)",
            details: ["appGroup": .string(group), "entitledAppGroups": ["group.a", "group.b"]])
    }

    @Test func theExchangeIsRecordedCallByCall() async throws {
        let (test, store, _) = try await start()
        defer { test.close() }
        try await store.group("group.a").set("from the app", forKey: "ShareKey")
        try await withHangGuard { () async throws in
            #expect(
                try await test.invokeMethod(
                    channel: preferences, method: "setAppGroup",
                    arguments: ["appGroup": "group.a"]) == .null)
            #expect(
                try await test.invokeMethod(
                    channel: preferences, method: "getString",
                    arguments: ["key": "ShareKey"]) == "from the app")
            await #expect(throws: notEntitled("group.evil")) {
                try await test.invokeMethod(
                    channel: preferences, method: "setAppGroup",
                    arguments: ["appGroup": "group.evil"])
            }
            // The refused group did not replace the session's group.
            #expect(
                try await test.invokeMethod(
                    channel: preferences, method: "setString",
                    arguments: ["key": "Reply", "value": "done"]) == .null)
            do {
                _ = try await test.invokeMethod(channel: preferences, method: "getFloat", arguments: ["key": "x"])
                Issue.record("getFloat should not be implemented")
            } catch let error as ChannelError {
                #expect(error.code == .notImplemented)
            }
        }
        #expect(try await store.group("group.a").value(forKey: "Reply") == "done")
        #expect(try await store.group("group.b").allValues().isEmpty)

        let recorder = test.recorder
        #expect(
            recorder.calls(on: preferences).map(\.method)
                == ["setAppGroup", "getString", "setAppGroup", "setString", "getFloat"])
        #expect(
            recorder.calls(on: preferences).map(\.arguments) == [
                ["appGroup": "group.a"], ["key": "ShareKey"], ["appGroup": "group.evil"],
                ["key": "Reply", "value": "done"], ["key": "x"],
            ])
        // Every call came from the test's side; the plugin sent nothing of its own.
        #expect(recorder.records.allSatisfy { $0.direction == .received && $0.kind == .request })
        #expect(recorder.records(on: preferences, direction: .sent).isEmpty)

        let replies = recorder.replies(on: preferences)
        #expect(
            replies.map { $0?.envelope } == [
                .success(nil), .success("from the app"), .error(notEntitled("group.evil")), .success(nil), nil,
            ])
        // Bytes on the wire: a success envelope is 00 then the value; an error envelope starts with 01.
        #expect(replies[0]?.bytes == hex("00 00"))
        #expect(replies[1]?.bytes == hex("00") + standardString("from the app"))
        #expect(replies[2]?.bytes?.first == 0x01)
        #expect(replies[4] == .null)
        // The request bytes of the first call, written out: the method name, then the arguments map.
        #expect(
            recorder.records(on: preferences).first?.payload
                == standardString("setAppGroup") + hex("0d 01") + standardString("appGroup") + standardString("group.a")
        )
    }

    @Test func callsBeforeChoosingAGroupAreRefused() async throws {
        let (test, _, _) = try await start()
        defer { test.close() }
        try await withHangGuard { () async throws in
            _ = try? await test.invokeMethod(channel: preferences, method: "getInt", arguments: ["key": "n"])
        }
        let expected = MethodError(
            code: "APP_GROUP_HAS_NOT_BEEN_SET",
            message: "You need to call setAppGroup before getInt; this session has no app group "
                + "(entitled app groups: group.a, group.b)",
            details: ["method": "getInt", "entitledAppGroups": ["group.a", "group.b"]])
        #expect(test.recorder.replies(on: preferences).map { $0?.envelope } == [.error(expected)])
    }

    @Test func theChangeStreamIsRecordedAsMessagesThePluginSent() async throws {
        let (test, _, _) = try await start()
        defer { test.close() }
        try await withHangGuard { () async throws in
            var events = test.receiveBroadcastStream(channel: changes, arguments: ["appGroup": "group.b"])
                .makeAsyncIterator()
            // The plugin subscribes to the store before it answers listen: wait for the answer.
            await test.recorder.waitUntil { records in
                records.contains { $0.channel == changes && $0.method == "listen" && $0.reply != nil }
            }
            _ = try await test.invokeMethod(
                channel: preferences, method: "setAppGroup", arguments: ["appGroup": "group.b"])
            _ = try await test.invokeMethod(
                channel: preferences, method: "setInt", arguments: ["key": "n", "value": 7])
            _ = try await test.invokeMethod(channel: preferences, method: "remove", arguments: ["key": "n"])
            #expect(try await events.next() == .success(["key": "n", "value": 7]))
            #expect(try await events.next() == .success(["key": "n", "value": nil]))
        }
        let recorder = test.recorder
        // Dropping the stream cancels it, with the listen arguments, as Flutter's listener does.
        try await withHangGuard { () async throws in
            await recorder.waitUntil { records in
                records.contains { $0.channel == changes && $0.method == "cancel" && $0.reply != nil }
            }
        }
        #expect(
            recorder.calls(on: changes, direction: .received) == [
                MethodCall("listen", arguments: ["appGroup": "group.b"]),
                MethodCall("cancel", arguments: ["appGroup": "group.b"]),
            ])
        #expect(recorder.replies(on: changes).map { $0?.envelope } == [.success(nil), .success(nil)])
        let events = recorder.messages(on: changes)
        #expect(events.map(\.direction) == [.sent, .sent])
        #expect(events.map(\.event) == [.success(["key": "n", "value": 7]), .success(["key": "n", "value": nil])])
    }

    @Test func aListenForAnUnentitledGroupIsRefused() async throws {
        let (test, _, _) = try await start()
        defer { test.close() }
        try await withHangGuard { () async throws in
            await #expect(throws: notEntitled("group.c")) {
                for try await _ in test.receiveBroadcastStream(channel: changes, arguments: ["appGroup": "group.c"]) {}
            }
        }
        #expect(test.recorder.replies(on: changes).map { $0?.envelope } == [.error(notEntitled("group.c"))])
        #expect(test.recorder.messages(on: changes).isEmpty)
    }
}

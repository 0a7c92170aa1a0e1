import ChannelBridgeChannels
import ChannelBridgeClient
import ChannelBridgeCodec
import ChannelBridgeMessenger
import ChannelBridgeSocket
import ChannelBridgeTestSupport
import Synchronization
import Testing

/// The client against a scripted host over a real socket: the exact arguments it sends, and what
/// it does with replies and events of the wrong shape, which the real host never sends.
@Suite struct ClientWireTests {
    /// Answers the extension and preference channels with `answer`, recording every call, and
    /// owns the change stream with `changes`.
    final class ScriptedHost: Sendable {
        let directory: TestDirectory
        let listener: SocketListener
        let calls: Inbox<MethodCall>

        init(
            changes: ScriptedChanges = ScriptedChanges([]),
            answer: @escaping @Sendable (MethodCall) throws -> StandardValue = { _ in .null }
        ) throws {
            let directory = try TestDirectory()
            let calls = Inbox<MethodCall>()
            self.directory = directory
            self.calls = calls
            listener = try SocketListener(path: directory.socket) { connection in
                for name in [ExtensionHostClient.extensionChannelName, SharedPreferencesClient.channelName] {
                    MethodChannel(name: name, messenger: connection.messenger).setMethodCallHandler { call in
                        calls.put(call)
                        return try answer(call)
                    }
                }
                EventChannel(name: SharedPreferencesClient.changesChannelName, messenger: connection.messenger)
                    .setStreamHandler(changes)
            }
        }

        /// The connect deadline is not what these tests are about, and a sanitized build under load
        /// can take longer than its default (5 s) to set a session up: the hang guard bounds it.
        func connect() async throws -> ExtensionHostClient {
            try await ExtensionHostClient.connect(
                to: directory.socket, options: SocketConnection.Options(connectTimeout: .seconds(120)))
        }

        func stop() {
            listener.close()
            directory.remove()
        }
    }

    /// Sends `events` (a value, or a `MethodError` as an error event) at each listen; records the
    /// listen arguments and each cancel.
    final class ScriptedChanges: StreamHandler {
        let events: [Result<StandardValue, MethodError>]
        let listens = Inbox<StandardValue>()
        let cancels = Inbox<StandardValue>()

        init(_ events: [Result<StandardValue, MethodError>]) {
            self.events = events
        }

        func onListen(arguments: StandardValue, events sink: EventSink) async throws {
            listens.put(arguments)
            for event in events {
                switch event {
                case .success(let value): sink.success(value)
                case .failure(let error): sink.error(error)
                }
            }
        }

        func onCancel(arguments: StandardValue) async throws {
            cancels.put(arguments)
        }
    }

    /// The `ChannelError` a call throws, or nil (recorded) when it throws something else or nothing.
    func channelError(_ body: () async throws -> some Any) async -> ChannelError? {
        do {
            let value = try await body()
            Issue.record("expected a ChannelError, got \(value)")
        } catch let error as ChannelError {
            return error
        } catch {
            Issue.record("expected a ChannelError, got \(error)")
        }
        return nil
    }

    @Test func argumentsAreTheMapsTheHostReads() async throws {
        try await withHangGuard {
            let host = try ScriptedHost()
            defer { host.stop() }
            let client = try await host.connect()
            defer { client.close() }
            let prefs = try await client.sharedPreferences(appGroup: "group.a")
            #expect(await host.calls.next().arguments == ["appGroup": "group.a"])
            _ = try await prefs.getString("k")
            #expect(await host.calls.next() == MethodCall("getString", arguments: ["key": "k"]))
            // nil is an explicit null under "value": the plugin removes the key for it, and
            // refuses a setter without "value".
            try await prefs.setString("k", nil)
            #expect(await host.calls.next() == MethodCall("setString", arguments: ["key": "k", "value": nil]))
            try await prefs.setInt("i", 5_000_000_000)
            #expect(await host.calls.next().arguments == ["key": "i", "value": .int64(5_000_000_000)])
            try await prefs.setInt("i", 7)
            #expect(await host.calls.next().arguments == ["key": "i", "value": .int32(7)])
            try await prefs.setStringArray("l", ["x"])
            #expect(await host.calls.next().arguments == ["key": "l", "value": ["x"]])
            try await prefs.setBytes("y", [0, 255])
            #expect(await host.calls.next().arguments == ["key": "y", "value": .uint8List([0, 255])])
            try await prefs.remove("k")
            #expect(await host.calls.next() == MethodCall("remove", arguments: ["key": "k"]))
            try await prefs.removeAll()
            #expect(await host.calls.next() == MethodCall("removeAll", arguments: nil))
            // A missing message and details are explicit nulls, which the host reads as absent.
            try await client.cancel(code: "E_USER")
            #expect(
                await host.calls.next()
                    == MethodCall("cancel", arguments: ["code": "E_USER", "message": nil, "details": nil]))
            _ = try? await client.openURL("https://e.x")
            #expect(await host.calls.next() == MethodCall("openURL", arguments: ["url": "https://e.x"]))
            _ = try? await client.appGroupContainer("group.a")
            #expect(await host.calls.next() == MethodCall("getAppGroupContainer", arguments: ["appGroup": "group.a"]))
        }
    }

    @Test func aReplyOfTheWrongShapeNamesTheMethodAndThePath() async throws {
        try await withHangGuard {
            let host = try ScriptedHost { call in
                switch call.method {
                case "getInputItems": [["title": 3, "attachments": []]]
                case "openURL": 1
                case "getString": ["text"]
                case "getAll": "all"
                default: nil
                }
            }
            defer { host.stop() }
            let client = try await host.connect()
            defer { client.close() }
            let prefs = SharedPreferencesClient(messenger: client.messenger)
            let (extensionChannel, preferences) = (
                ExtensionHostClient.extensionChannelName, SharedPreferencesClient.channelName
            )
            let cases: [(channel: String, method: String, message: String, call: () async throws -> any Sendable)] = [
                (
                    extensionChannel, "getInputItems",
                    "The result of getInputItems is not Array<ExtensionItem>: `[0].title`: expected a String, found int32 3",
                    { try await client.items() }
                ),
                (
                    extensionChannel, "openURL", "The result of openURL is not Bool: expected a bool, found int32 1",
                    { try await client.openURL("https://e.x") }
                ),
                (
                    extensionChannel, "getAppGroupContainer",
                    "The result of getAppGroupContainer is not String: expected a String, found null",
                    { try await client.appGroupContainer("group.a") }
                ),
                (
                    preferences, "getString",
                    "The result of getString is not Optional<String>: expected a String, found List of 1 element",
                    { try await prefs.getString("k") }
                ),
                (preferences, "getAll", #"getAll answered "all", not a map"#, { try await prefs.getAll() }),
            ]
            for (channel, method, message, call) in cases {
                let error = await channelError(call)
                #expect(error?.code == .malformedReply, "\(method)")
                #expect(error?.channel == channel)
                #expect(error?.method == method)
                #expect(error?.message == message)
            }
        }
    }

    @Test func itemsNeedTheirAttachmentsAndKeepUnknownOnesAsSent() async throws {
        try await withHangGuard {
            let attachments: StandardValue = [
                "not a map",
                ["typeIdentifier": "public.url"],
                ["typeIdentifier": "public.plain-text", "text": 3],
                ["typeIdentifier": "public.png", "path": "/c/a.png"],
            ]
            let host = try ScriptedHost { call in
                call.arguments == "bare" ? [["title": "T"]] : [["title": nil, "attachments": attachments]]
            }
            defer { host.stop() }
            let client = try await host.connect()
            defer { client.close() }
            #expect(
                try await client.items() == [
                    ExtensionItem(
                        attachments: attachments.listValue!.prefix(3).map(ExtensionItem.Attachment.other)
                            + [.file(typeIdentifier: "public.png", path: "/c/a.png", name: nil)])
                ])
            let error = await channelError {
                try await client.extensionChannel.invokeMethod(
                    "getInputItems", arguments: "bare",
                    as: [ExtensionItem].self)
            }
            #expect(
                error?.message == "The result of getInputItems is not Array<ExtensionItem>: `[0].attachments`: missing")
        }
    }

    @Test func anErrorEventEndsTheChangesAndTheStreamIsCancelled() async throws {
        try await withHangGuard {
            let changes = ScriptedChanges([
                .success(["key": "k", "value": 1]),
                .success(["key": "k", "value": nil]),
                .failure(MethodError(code: "STORE_ERROR", message: "gone", details: nil)),
                .success(["key": "after", "value": 2]),
            ])
            let host = try ScriptedHost(changes: changes)
            defer { host.stop() }
            let client = try await host.connect()
            defer { client.close() }
            let prefs = SharedPreferencesClient(messenger: client.messenger)
            var seen: [PreferenceChange] = []
            do {
                for try await change in prefs.changes(keys: ["k"]) { seen.append(change) }
                Issue.record("the error event did not end the sequence")
            } catch let error as MethodError {
                #expect(error.code == "STORE_ERROR")
                #expect(error.message == "gone")
            }
            #expect(seen == [PreferenceChange(key: "k", value: 1), PreferenceChange(key: "k", value: nil)])
            // No group chosen: null, which the plugin reads as the session's group.
            #expect(await changes.listens.next() == ["appGroup": nil, "keys": ["k"]])
            #expect(await changes.cancels.next() == ["appGroup": nil, "keys": ["k"]])
        }
    }

    @Test func leavingTheChangesEarlyCancelsTheStream() async throws {
        try await withHangGuard {
            let changes = ScriptedChanges([.success(["key": "k", "value": "v"])])  // and then nothing, never ending
            let host = try ScriptedHost(changes: changes)
            defer { host.stop() }
            let client = try await host.connect()
            defer { client.close() }
            let prefs = try await client.sharedPreferences(appGroup: "group.a")
            for try await change in prefs.changes() {
                #expect(change == PreferenceChange(key: "k", value: "v"))
                break
            }
            // The group chosen with setAppGroup.
            #expect(await changes.listens.next() == ["appGroup": "group.a", "keys": nil])
            #expect(await changes.cancels.next() == ["appGroup": "group.a", "keys": nil])
        }
    }

    @Test func anEventOfTheWrongShapeEndsTheChangesNamingThePath() async throws {
        try await withHangGuard {
            let changes = ScriptedChanges([.success(["key": 3, "value": nil])])
            let host = try ScriptedHost(changes: changes)
            defer { host.stop() }
            let client = try await host.connect()
            defer { client.close() }
            let prefs = SharedPreferencesClient(messenger: client.messenger)
            let error = await channelError {
                for try await change in prefs.changes(appGroup: "group.a") { Issue.record("got \(change)") }
            }
            #expect(error?.code == .malformedEvent)
            #expect(error?.channel == SharedPreferencesClient.changesChannelName)
            #expect(error?.message == "An event is not PreferenceChange: `key`: expected a String, found int32 3")
            #expect(await changes.listens.next() == ["appGroup": "group.a", "keys": nil])
            #expect(await changes.cancels.next() == ["appGroup": "group.a", "keys": nil])
        }
    }
}

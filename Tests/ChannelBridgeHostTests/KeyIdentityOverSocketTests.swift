import ChannelBridgeChannels
import ChannelBridgeClient
import ChannelBridgeCodec
import ChannelBridgeHost
import ChannelBridgeSocket
import ChannelBridgeTestSupport
import Foundation
import Testing

/// A host keeps `"\u{E9}"` and `"e\u{301}"` apart in keys and group names: two keys, two groups,
/// and an entitlement to one spelling only (Protocol/store.md, "Keys and group names"). Names are
/// compared as bytes here, because Swift's `String ==` calls the two spellings equal.
@Suite struct KeyIdentityOverSocketTests {
    static let composed = "caf\u{E9}"
    static let decomposed = "cafe\u{301}"
    static let composedGroup = "grp\u{E9}"
    static let decomposedGroup = "grpe\u{301}"

    static func bytes(_ text: String?) -> [UInt8]? { text.map { Array($0.utf8) } }

    static func key(of event: EventChannel.Event) -> String? {
        guard case .success(let value) = event, case .string(let key)? = value["key"] else { return nil }
        return key
    }

    @Test func composedAndDecomposedKeysAreTwoKeysThroughTheHost() async throws {
        let directory = try TestDirectory()
        defer { directory.remove() }
        try await withHangGuard {
            let host = try await HostTesting.start(directory)
            let connection = try await HostTesting.connect(directory)
            let prefs = SharedPreferencesClient(messenger: connection.messenger)
            try await prefs.setInt(Self.composed, 1)
            try await prefs.setInt(Self.decomposed, 2)
            #expect(try await prefs.getInt(Self.composed) == 1)
            #expect(try await prefs.getInt(Self.decomposed) == 2)
            let all = try await prefs.getAll()
            #expect(
                all.map { $0.key.stringValue.flatMap(Self.bytes) } == [
                    Self.bytes(Self.composed), Self.bytes(Self.decomposed),
                ])
            #expect(all.map(\.value) == [.int32(1), .int32(2)])
            try await prefs.remove(Self.composed)
            #expect(try await prefs.getInt(Self.composed) == nil)
            #expect(try await prefs.getInt(Self.decomposed) == 2)
            #expect(try await prefs.take(Self.decomposed) == .int32(2))
            #expect(try await prefs.getAll().isEmpty)

            _ = try await HostTesting.methods(connection).invokeMethod("exit")
            #expect(await host.waitForExit().status == 0)
        }
    }

    @Test func aListenerOfOneSpellingIsNotToldOfTheOther() async throws {
        let directory = try TestDirectory()
        defer { directory.remove() }
        try await withHangGuard {
            let host = try await HostTesting.start(directory)
            let connection = try await HostTesting.connect(directory)
            let stream = EventChannel(name: "shared_preference_app_group/changes", messenger: connection.messenger)
                .receiveBroadcastStream(arguments: HostTesting.map(["keys": [.string(Self.decomposed)]]))
            let events = Collector<EventChannel.Event>(name: "change events")
            let consuming = Task {
                for try await event in stream { events.append(event) }
            }
            defer { consuming.cancel() }
            let prefs = SharedPreferencesClient(messenger: connection.messenger)
            // The session's own writes may overtake `listen`; one seen proves the stream is active.
            while events.count == 0 {
                try await prefs.setString(Self.decomposed, "probe")
                _ = try? await events.wait(for: "a first event", hangGuard: .milliseconds(500)) { !$0.isEmpty }
            }
            // Changes come in write order: the other spelling's would come before "watched".
            try await prefs.setString(Self.composed, "other")
            try await prefs.setString(Self.decomposed, "watched")
            let watched = EventChannel.Event.success(
                HostTesting.map(["key": .string(Self.decomposed), "value": "watched"]))
            let seen = try await events.wait(for: "the watched write") { $0.contains(watched) }
            #expect(
                seen.map { Self.bytes(Self.key(of: $0)) }.allSatisfy { $0 == Self.bytes(Self.decomposed) }, "\(seen)")

            _ = try await HostTesting.methods(connection).invokeMethod("exit")
            #expect(await host.waitForExit().status == 0)
        }
    }

    @Test(arguments: [(composedGroup, decomposedGroup), (decomposedGroup, composedGroup)])
    func anEntitlementToOneSpellingOfAGroupIsNotOneToTheOther(entitled: String, asked: String) async throws {
        let directory = try TestDirectory()
        defer { directory.remove() }
        try await withHangGuard {
            let host = try await HostTesting.start(directory, ["--app-group", entitled, "--app-group", "group.b"])
            let connection = try await HostTesting.connect(directory)
            let prefs = HostTesting.methods(connection, HostTesting.prefsChannel)

            let refused = try await #require(throws: MethodError.self) {
                try await prefs.invokeMethod("setAppGroup", arguments: HostTesting.map(["appGroup": .string(asked)]))
            }
            #expect(refused.code == "APP_GROUP_NOT_ENTITLED")
            #expect(
                Self.bytes(refused.message)
                    == Self.bytes(
                        "Not entitled to the app group '\(asked)' (entitled app groups: \(entitled), group.b)"))
            // The refusal left the session without a group.
            let missing = try await #require(throws: MethodError.self) {
                try await prefs.invokeMethod("getInt", arguments: HostTesting.map(["key": "k"]))
            }
            #expect(missing.code == "APP_GROUP_HAS_NOT_BEEN_SET")

            let stream = EventChannel(name: "shared_preference_app_group/changes", messenger: connection.messenger)
                .receiveBroadcastStream(arguments: HostTesting.map(["appGroup": .string(asked)]))
            let listenRefused = try await #require(throws: MethodError.self) { for try await _ in stream {} }
            #expect(listenRefused.code == "APP_GROUP_NOT_ENTITLED")

            let ext = HostTesting.methods(connection)
            let containerRefused = try await #require(throws: MethodError.self) {
                try await ext.invokeMethod(
                    "getAppGroupContainer", arguments: HostTesting.map(["appGroup": .string(asked)]))
            }
            #expect(containerRefused.code == "APP_GROUP_NOT_ENTITLED")

            // The entitled spelling works, and writes its own directory only.
            _ = try await prefs.invokeMethod("setAppGroup", arguments: HostTesting.map(["appGroup": .string(entitled)]))
            _ = try await prefs.invokeMethod("setInt", arguments: HostTesting.map(["key": "k", "value": .int32(1)]))
            let groups = try FileManager.default.contentsOfDirectory(atPath: directory.data + "/app-groups")
            #expect(groups.map { Array($0.utf8) } == [Array(entitled.utf8)])

            _ = try await ext.invokeMethod("exit")
            #expect(await host.waitForExit().status == 0)
        }
    }

    @Test func bothSpellingsGivenWithAppGroupAreTwoEntitledGroups() throws {
        let command = try HostOptions.parse([
            "--app-group", Self.composedGroup, "--app-group", Self.decomposedGroup,
            "--app-group", Self.composedGroup,
        ])
        guard case .run(let options) = command else {
            Issue.record("not a run: \(command)")
            return
        }
        #expect(
            options.appGroups.map { Array($0.utf8) } == [
                Array(Self.composedGroup.utf8), Array(Self.decomposedGroup.utf8),
            ])
    }
}

import ChannelBridgeTestSupport
import ChannelBridgeChannels
import ChannelBridgeCodec
import ChannelBridgeSocket
import Foundation
import Testing

/// The `shared_preference_app_group` plugin as the host registers it, over the real socket.
@Suite struct SharedPreferencesOverSocketTests {
    @Test func entitlementMissingGroupWrongTypeAndUnknownMethod() async throws {
        let directory = try TestDirectory()
        defer { directory.remove() }
        try await withHangGuard {
            let host = try await HostTesting.start(directory, ["--app-group", "group.a", "--app-group", "group.b"])
            let connection = try await HostTesting.connect(directory)
            let prefs = HostTesting.methods(connection, HostTesting.prefsChannel)
            let key = HostTesting.map(["key": "count"])

            // Two entitled groups: no default, so the session must choose first.
            let missing = try await #require(throws: MethodError.self) {
                try await prefs.invokeMethod("getInt", arguments: key)
            }
            #expect(missing.code == "APP_GROUP_HAS_NOT_BEEN_SET")
            #expect(missing.message?.contains("setAppGroup") == true)

            let refused = try await #require(throws: MethodError.self) {
                try await prefs.invokeMethod("setAppGroup", arguments: HostTesting.map(["appGroup": "group.c"]))
            }
            #expect(refused.code == "APP_GROUP_NOT_ENTITLED")
            #expect(
                refused.message == "Not entitled to the app group 'group.c' (entitled app groups: group.a, group.b)")
            // The refusal left the session without a group.
            let stillMissing = try await #require(throws: MethodError.self) {
                try await prefs.invokeMethod("getInt", arguments: key)
            }
            #expect(stillMissing.code == "APP_GROUP_HAS_NOT_BEEN_SET")

            _ = try await prefs.invokeMethod("setAppGroup", arguments: HostTesting.map(["appGroup": "group.b"]))
            #expect(try await prefs.invokeMethod("getInt", arguments: key) == .null)
            _ = try await prefs.invokeMethod(
                "setInt", arguments: HostTesting.map(["key": "count", "value": .int32(3)]))
            #expect(try await prefs.invokeMethod("getInt", arguments: key) == .int32(3))
            #expect(try await prefs.invokeMethod("getDouble", arguments: key) == .float64(3))
            let wrongType = try await #require(throws: MethodError.self) {
                try await prefs.invokeMethod("getString", arguments: key)
            }
            #expect(wrongType.code == "WRONG_TYPE")
            #expect(wrongType.message == "getString: the value of key 'count' is int (int32), not String")

            let unknown = try await #require(throws: ChannelError.self) {
                try await prefs.invokeMethod("getEverything")
            }
            #expect(unknown.code == .notImplemented)
            #expect(
                unknown.message
                    == "No implementation found for method getEverything on channel shared_preference_app_group")
            #expect(unknown.channel == "shared_preference_app_group" && unknown.method == "getEverything")

            _ = try await HostTesting.methods(connection).invokeMethod("exit")
            #expect(await host.waitForExit().status == 0)
        }
    }

    @Test func aSingleEntitledGroupIsTheDefaultAndPluginNarrowingKeepsIt() async throws {
        let directory = try TestDirectory()
        defer { directory.remove() }
        try await withHangGuard {
            let host = try await HostTesting.start(directory, ["--plugin", "SharedPreferenceAppGroupPlugin"])
            let connection = try await HostTesting.connect(directory)
            let prefs = HostTesting.methods(connection, HostTesting.prefsChannel)
            _ = try await prefs.invokeMethod(
                "setStringArray", arguments: HostTesting.map(["key": "itemList", "value": ["a", "b"]]))
            #expect(
                try await prefs.invokeMethod("getStringArray", arguments: HostTesting.map(["key": "itemList"])) == [
                    "a", "b",
                ])
            _ = try await HostTesting.methods(connection).invokeMethod("exit")
            #expect(await host.waitForExit().status == 0)
            let file = try String(contentsOfFile: directory.preferencesFile("group.local"), encoding: .utf8)
            #expect(file.contains(#""itemList": ["a","b"]"#) || file.contains(#""itemList":["a","b"]"#))
        }
    }
}

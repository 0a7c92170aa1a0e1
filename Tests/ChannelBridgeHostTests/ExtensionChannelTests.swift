import ChannelBridgeTestSupport
import ChannelBridgeChannels
import ChannelBridgeCodec
import ChannelBridgeSocket
import Foundation
import Testing

/// The extension channel's other methods, over the socket of a real host.
@Suite struct ExtensionChannelTests {
    @Test(arguments: [("allow", true), ("deny", false)])
    func openURLAnswersThePolicyAndIsRecorded(policy: String, opened: Bool) async throws {
        let directory = try TestDirectory()
        defer { directory.remove() }
        try await withHangGuard {
            let host = try await HostTesting.start(directory, ["--open-url", policy])
            let connection = try await HostTesting.connect(directory)
            let ext = HostTesting.methods(connection)
            for url in ["https://example.com/one", "myapp://import?id=7"] {
                #expect(
                    try await ext.invokeMethod("openURL", arguments: HostTesting.map(["url": .string(url)]))
                        == .bool(opened))
            }
            let missing = try await #require(throws: MethodError.self) {
                try await ext.invokeMethod("openURL", arguments: HostTesting.map(["link": "https://x"]))
            }
            #expect(missing.code == "INVALID_ARGUMENTS" && missing.message == "openURL: the argument 'url' is missing")
            _ = try await ext.invokeMethod("exit")
            let exit = await host.waitForExit()
            #expect(
                exit.stdoutLines.last
                    == #"{"outcome":"completed","returnedItems":null,"error":null,"openedURLs":[{"url":"https://example.com/one","opened":\#(opened)},{"url":"myapp://import?id=7","opened":\#(opened)}]}"#
            )
        }
    }

    @Test func openURLIsDeniedByDefault() async throws {
        let directory = try TestDirectory()
        defer { directory.remove() }
        try await withHangGuard {
            let host = try await HostTesting.start(directory)
            let connection = try await HostTesting.connect(directory)
            #expect(
                try await HostTesting.methods(connection).invokeMethod(
                    "openURL", arguments: HostTesting.map(["url": "https://example.com"])) == .bool(false))
            _ = try await HostTesting.methods(connection).invokeMethod("exit")
            #expect(
                await host.waitForExit().stdoutLines.last?.hasSuffix(
                    #""openedURLs":[{"url":"https://example.com","opened":false}]}"#) == true)
        }
    }

    @Test func getAppGroupContainerServesEntitledGroupsOnly() async throws {
        let directory = try TestDirectory()
        defer { directory.remove() }
        try await withHangGuard {
            let host = try await HostTesting.start(directory, ["--app-group", "group.one", "--app-group", "group.two"])
            let connection = try await HostTesting.connect(directory)
            let ext = HostTesting.methods(connection)
            #expect(!FileManager.default.fileExists(atPath: directory.container("group.two")))
            let path = try await ext.invokeMethod(
                "getAppGroupContainer", arguments: HostTesting.map(["appGroup": "group.two"]))
            #expect(path == .string(directory.container("group.two")))
            var isDirectory: ObjCBool = false
            #expect(
                FileManager.default.fileExists(atPath: directory.container("group.two"), isDirectory: &isDirectory)
                    && isDirectory.boolValue)

            let refused = try await #require(throws: MethodError.self) {
                try await ext.invokeMethod(
                    "getAppGroupContainer", arguments: HostTesting.map(["appGroup": "group.three"]))
            }
            #expect(refused.code == "APP_GROUP_NOT_ENTITLED")
            #expect(
                refused.message == "getAppGroupContainer: not entitled to the app group 'group.three' "
                    + "(entitled app groups: group.one, group.two)")
            #expect(
                refused.details
                    == HostTesting.map(["appGroup": "group.three", "entitledAppGroups": ["group.one", "group.two"]]))
            #expect(!FileManager.default.fileExists(atPath: directory.group("group.three")))
            _ = try await ext.invokeMethod("exit")
            #expect(await host.waitForExit().status == 0)
        }
    }

    @Test func anUnknownMethodIsNotImplementedNamingChannelAndMethod() async throws {
        let directory = try TestDirectory()
        defer { directory.remove() }
        try await withHangGuard {
            let host = try await HostTesting.start(directory, ["--channel", "example/share"])
            let connection = try await HostTesting.connect(directory)
            let ext = HostTesting.methods(connection, "example/share")
            let error = try await #require(throws: ChannelError.self) { try await ext.invokeMethod("selfDestruct") }
            #expect(error.code == .notImplemented)
            #expect(error.channel == "example/share" && error.method == "selfDestruct")
            #expect(error.message == "No implementation found for method selfDestruct on channel example/share")
            // The default name is not served when --channel names another.
            let absent = try await #require(throws: ChannelError.self) {
                try await HostTesting.methods(connection).invokeMethod("exit")
            }
            #expect(absent.code == .notImplemented && absent.channel == "channelbridge/extension")
            _ = try await ext.invokeMethod("exit")
            #expect(await host.waitForExit().status == 0)
        }
    }
}

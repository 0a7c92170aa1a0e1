import ChannelBridgeTestSupport
import ChannelBridgeChannels
import ChannelBridgeCodec
import ChannelBridgeSocket
import ChannelBridgeStore
import Foundation
import Testing

/// The originating setup, end to end: a share extension saved what was shared under `ShareKey`;
/// its UI (here, this test process) reads it through the plugin, clears it and calls `exit`.
@Suite struct SeedFlowTests {
    @Test func theUIReadsTheSharedItemsClearsTheKeyAndExits() async throws {
        let directory = try TestDirectory()
        defer { directory.remove() }
        try await withHangGuard {
            let host = try await HostTesting.start(
                directory,
                [
                    "--app-group", "group.info.example", "--text", "共有テキスト", "--url", "https://example.com/a?b=c",
                    "--share-key", "ShareKey",
                ])
            let connection = try await HostTesting.connect(directory)
            let prefs = HostTesting.methods(connection, HostTesting.prefsChannel)
            let ext = HostTesting.methods(connection)

            #expect(
                try await ext.invokeMethod("getInputItems")
                    == .list([
                        HostTesting.map([
                            "attachments": .list([
                                HostTesting.map(["typeIdentifier": "public.plain-text", "text": "共有テキスト"]),
                                HostTesting.map(["typeIdentifier": "public.url", "url": "https://example.com/a?b=c"]),
                            ])
                        ])
                    ]))
            #expect(
                try await prefs.invokeMethod(
                    "setAppGroup", arguments: HostTesting.map(["appGroup": "group.info.example"]))
                    == .null)
            let shared = try await prefs.invokeMethod("getString", arguments: HostTesting.map(["key": "ShareKey"]))
            #expect(shared == .string(#"{"text":["共有テキスト","https://example.com/a?b=c"],"files":[]}"#))
            #expect(
                try await prefs.invokeMethod("setString", arguments: HostTesting.map(["key": "ShareKey", "value": ""]))
                    == .null)
            #expect(try await ext.invokeMethod("exit") == .null)

            let exit = await host.waitForExit()
            #expect(exit.status == 0 && !exit.bySignal)
            #expect(
                exit.stdoutLines == [
                    "ready \(directory.socket)",
                    #"{"outcome":"completed","returnedItems":null,"error":null,"openedURLs":[]}"#,
                ])
            await connection.waitUntilClosed()
            #expect(!FileManager.default.fileExists(atPath: directory.socket))
            let stored = try await AppGroupStore(dataDirectory: directory.data).group("group.info.example")
                .value(forKey: "ShareKey")
            #expect(stored == .string(""))
        }
    }

    @Test func exitReturningItemsRecordsThemAsCanonicalTVN() async throws {
        let directory = try TestDirectory()
        defer { directory.remove() }
        try await withHangGuard {
            let host = try await HostTesting.start(directory)
            let connection = try await HostTesting.connect(directory)
            let returned: StandardValue = .list([
                HostTesting.map(["ok": true, "count": .int32(2), "big": .int64(5)]),
                .float64(0.5), .uint8List([0, 255]),
            ])
            #expect(
                try await HostTesting.methods(connection).invokeMethod("completeRequest", arguments: returned) == .null)
            let exit = await host.waitForExit()
            #expect(exit.status == 0)
            #expect(
                exit.stdoutLines.last
                    == #"{"outcome":"completed","returnedItems":[{"map":[["ok",true],["count",{"int32":2}],["big",{"int64":"5"}]]},{"float64":0.5},{"uint8list":"00ff"}],"error":null,"openedURLs":[]}"#
            )
        }
    }
}

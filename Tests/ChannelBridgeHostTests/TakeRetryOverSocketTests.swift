import ChannelBridgeChannels
import ChannelBridgeClient
import ChannelBridgeCodec
import ChannelBridgeSocket
import ChannelBridgeStore
import ChannelBridgeTestSupport
import Glibc
import Testing

/// A take whose reply died with the host: the client reconnects to the restarted host and sends
/// the same take again, and gets the items the first take removed, once.
@Suite struct TakeRetryOverSocketTests {
    @Test func aTakeCommittedByAKilledHostIsAnsweredByTheNextHostWithTheSameItems() async throws {
        let directory = try TestDirectory()
        defer { directory.remove() }
        try await withHangGuard(seconds: 60) {
            let host = try await HostTesting.start(directory, ["--app-group", "group.kill"])
            let client = try await ExtensionHostClient.connect(to: directory.socket, options: HostTesting.clientOptions)
            defer { client.close() }
            let prefs = try await client.sharedPreferences(appGroup: "group.kill")
            try await prefs.appendToList("itemList", ["a", .map(["n": .int32(1)])])
            // What the host did before it died: the take committed, with its receipt, and no reply.
            let store = try AppGroupStore(dataDirectory: directory.data).group("group.kill")
            #expect(try await store.take(key: "itemList", requestID: "take-1") == .list(["a", .map(["n": .int32(1)])]))
            try await store.appendToList(key: "itemList", values: ["b"])
            host.send(signal: SIGKILL)
            #expect(await host.waitForExit().bySignal)

            // The retry meets a dead connection, then no host, then the new one.
            let retried = Task { try await prefs.take("itemList", requestID: "take-1") }
            let next = try await HostTesting.start(directory, ["--app-group", "group.kill"])
            #expect(try await retried.value == .list(["a", .map(["n": .int32(1)])]))
            // Nothing was taken twice and nothing lost: "b" is still there for the next take.
            #expect(try await prefs.take("itemList") == .list(["b"]))
            #expect(try await prefs.take("itemList") == .null)
            next.send(signal: SIGTERM)
            _ = await next.waitForExit()
        }
    }

    @Test func aClientMadeWithoutAWayToReconnectDoesNotRetry() async throws {
        let directory = try TestDirectory()
        defer { directory.remove() }
        try await withHangGuard(seconds: 60) {
            let host = try await HostTesting.start(directory, ["--app-group", "group.kill"])
            let client = try await ExtensionHostClient.connect(to: directory.socket, options: HostTesting.clientOptions)
            defer { client.close() }
            let prefs = SharedPreferencesClient(messenger: client.messenger)
            host.send(signal: SIGKILL)
            _ = await host.waitForExit()
            await client.connection.waitUntilClosed()
            let error = await #expect(throws: ChannelError.self) { try await prefs.take("itemList") }
            #expect(error?.code == .connectionClosed)
        }
    }
}

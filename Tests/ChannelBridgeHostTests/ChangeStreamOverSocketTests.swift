import ChannelBridgeChannels
import ChannelBridgeCodec
import ChannelBridgeSocket
import ChannelBridgeTestSupport
import Foundation
import Testing

/// The containing app of the originating setup, as a separate process using the same store:
/// what it writes reaches a client listening through the host, and it imports what the
/// extension shared.
@Suite struct ChangeStreamOverSocketTests {
    @Test func aWriteByAnotherProcessReachesAListenerThroughTheHost() async throws {
        let directory = try TestDirectory()
        defer { directory.remove() }
        try await withHangGuard {
            let host = try await HostTesting.start(directory, ["--app-group", "group.app"])
            let connection = try await HostTesting.connect(directory)
            let changes = EventChannel(name: "shared_preference_app_group/changes", messenger: connection.messenger)
            let stream = changes.receiveBroadcastStream(
                arguments: HostTesting.map(["appGroup": "group.app", "keys": ["note"]]))
            let events = Collector<EventChannel.Event>(name: "change events")
            let consuming = Task {
                for try await event in stream { events.append(event) }
            }
            defer { consuming.cancel() }
            // The host subscribes to the store while answering `listen`, which this session's own
            // writes may overtake; writing until one is seen proves the stream is active.
            let prefs = HostTesting.methods(connection, HostTesting.prefsChannel)
            let mine = EventChannel.Event.success(HostTesting.map(["key": "note", "value": "mine"]))
            while events.count == 0 {
                _ = try await prefs.invokeMethod(
                    "setString", arguments: HostTesting.map(["key": "note", "value": "mine"]))
                _ = try? await events.wait(for: "a first event", hangGuard: .milliseconds(500)) { !$0.isEmpty }
            }
            #expect(events.all.allSatisfy { $0 == mine })

            let peer = try await ProcessRunner.runOnThread(
                "channelbridge-store-peer",
                [
                    "set", "--data-dir", directory.data, "--group", "group.app", "--key", "note", "--value",
                    #""from the app""#,
                ])
            #expect(peer.status == 0, "\(peer.stderr)")
            let fromTheApp = EventChannel.Event.success(HostTesting.map(["key": "note", "value": "from the app"]))
            let seen = try await events.wait(for: "the other process's write") { $0.contains(fromTheApp) }
            #expect(seen.last == fromTheApp)

            _ = try await HostTesting.methods(connection).invokeMethod("exit")
            #expect(await host.waitForExit().status == 0)
        }
    }

    @Test func theContainingAppTakesWhatTheExtensionShared() async throws {
        let directory = try TestDirectory()
        defer { directory.remove() }
        try await withHangGuard {
            let host = try await HostTesting.start(
                directory,
                [
                    "--app-group", "group.app", "--text", "hello",
                    "--share-key", "ShareKey",
                ])
            let connection = try await HostTesting.connect(directory)
            _ = try await HostTesting.methods(connection).invokeMethod("exit")
            #expect(await host.waitForExit().status == 0)
            let take = try await ProcessRunner.runOnThread(
                "channelbridge-store-peer",
                [
                    "take", "--data-dir", directory.data, "--group", "group.app", "--key", "ShareKey",
                ])
            #expect(take.status == 0)
            #expect(take.stdout == #""{\"text\":[\"hello\"],\"files\":[]}""# + "\n")
            let again = try await ProcessRunner.runOnThread(
                "channelbridge-store-peer",
                [
                    "get", "--data-dir", directory.data, "--group", "group.app", "--key", "ShareKey",
                ])
            #expect(again.stdout == "null\n")
        }
    }
}

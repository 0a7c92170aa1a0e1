import ChannelBridgeChannels
import ChannelBridgeClient
import ChannelBridgeCodec
import ChannelBridgeMessenger
import ChannelBridgeSocket
import ChannelBridgeTestSupport
import Foundation
import Testing

/// The Swift client API against a real `extension-host` child process.
@Suite struct ExtensionHostClientTests {
    /// The defaults, the connect timeout stretched as hang guards are, so that a host slowed down
    /// by a sanitizer is not taken for a missing one.
    /// A connect that waits as long as the tests' hang guard: on a loaded machine a host's HELLO
    /// can take longer than the default 5 s, and these tests are not about that deadline.
    static let clientOptions = SocketConnection.Options(
        connectTimeout: .seconds(HangGuardScale.scaled(HangGuardScale.defaultSeconds)))

    func startHost(_ arguments: [String] = []) async throws -> (TestDirectory, HostProcess) {
        let directory = try TestDirectory()
        let host = try HostProcess(["--socket", directory.socket, "--data-dir", directory.data] + arguments)
        #expect(try await host.readyLine() == "ready \(directory.socket)")
        return (directory, host)
    }

    @Test func itemsAreTyped() async throws {
        try await withHangGuard {
            let (directory, host) = try await startHost(["--title", "T", "--text", "hi", "--url", "https://e.x/a"])
            defer { host.send(signal: SIGKILL); directory.remove() }
            let client = try await ExtensionHostClient.connect(to: directory.socket, options: Self.clientOptions)
            defer { client.close() }
            #expect(
                try await client.items() == [
                    ExtensionItem(title: "T", attachments: [.text("hi"), .url("https://e.x/a")])
                ])
            #expect(try await client.openURL("https://e.x/b") == false)
            let container = try await client.appGroupContainer("group.local")
            #expect(container == directory.container("group.local"))
        }
    }

    @Test func exitReturnsItemsAndTheHostCompletes() async throws {
        try await withHangGuard {
            let (directory, host) = try await startHost()
            defer { directory.remove() }
            let client = try await ExtensionHostClient.connect(to: directory.socket, options: Self.clientOptions)
            try await client.exit(returning: ["shared", 1])
            let exit = await host.waitForExit()
            #expect(exit.status == 0)
            #expect(
                exit.stdoutLines.last
                    == #"{"outcome":"completed","returnedItems":["shared",{"int32":1}],"error":null,"openedURLs":[]}"#)
            client.close()
        }
    }

    @Test func cancelCarriesCodeMessageAndDetails() async throws {
        try await withHangGuard {
            let (directory, host) = try await startHost()
            defer { directory.remove() }
            let client = try await ExtensionHostClient.connect(to: directory.socket, options: Self.clientOptions)
            try await client.cancel(code: "E_USER", message: "no", details: ["why": "test"])
            let exit = await host.waitForExit()
            #expect(exit.status == 2)
            #expect(
                exit.stdoutLines.last
                    == #"{"outcome":"cancelled","returnedItems":null,"error":{"code":"E_USER","message":"no","details":{"map":[["why","test"]]}},"openedURLs":[]}"#
            )
            client.close()
        }
    }

    /// The client sends a missing message and details as explicit nulls; the host takes them as absent.
    @Test func cancelWithACodeOnly() async throws {
        try await withHangGuard {
            let (directory, host) = try await startHost()
            defer { directory.remove() }
            let client = try await ExtensionHostClient.connect(to: directory.socket, options: Self.clientOptions)
            try await client.cancel(code: "E_USER")
            let exit = await host.waitForExit()
            #expect(exit.status == 2)
            #expect(
                exit.stdoutLines.last
                    == #"{"outcome":"cancelled","returnedItems":null,"error":{"code":"E_USER","message":null,"details":null},"openedURLs":[]}"#
            )
            client.close()
        }
    }

    @Test func sharedPreferencesTypedGettersAndSetters() async throws {
        try await withHangGuard {
            let (directory, host) = try await startHost(["--app-group", "group.a", "--app-group", "group.b"])
            defer { host.send(signal: SIGKILL); directory.remove() }
            let client = try await ExtensionHostClient.connect(to: directory.socket, options: Self.clientOptions)
            defer { client.close() }
            let prefs = try await client.sharedPreferences(appGroup: "group.b")
            try await prefs.setString("s", "text")
            try await prefs.setInt("i", 5_000_000_000)
            try await prefs.setDouble("d", 0.5)
            try await prefs.setBool("b", true)
            try await prefs.setStringArray("l", ["x", "y"])
            try await prefs.setBytes("y", [0, 255])
            #expect(try await prefs.getString("s") == "text")
            #expect(try await prefs.getInt("i") == 5_000_000_000)
            #expect(try await prefs.get("i") == .int64(5_000_000_000))
            #expect(try await prefs.getDouble("d") == 0.5)
            #expect(try await prefs.getDouble("i") == 5_000_000_000)
            #expect(try await prefs.getBool("b") == true)
            #expect(try await prefs.getStringArray("l") == ["x", "y"])
            #expect(try await prefs.getBytes("y") == [0, 255])
            #expect(try await prefs.getString("missing") == nil)
            #expect(try await prefs.getAll().map { $0.key } == ["s", "i", "d", "b", "l", "y"])
            try await prefs.setString("s", nil)
            try await prefs.remove("i")
            #expect(try await prefs.getString("s") == nil)
            #expect(try await prefs.get("i") == .null)
            await #expect(throws: MethodError.self) { try await prefs.getInt("d") }
            try await prefs.removeAll()
            #expect(try await prefs.getAll().isEmpty)
            do {
                try await prefs.setAppGroup("group.c")
                Issue.record("group.c is not entitled")
            } catch let error as MethodError {
                #expect(error.code == "APP_GROUP_NOT_ENTITLED")
            }
        }
    }

    @Test func changesStreamSeesWritesFromThisAndOtherSessions() async throws {
        try await withHangGuard {
            let (directory, host) = try await startHost(["--app-group", "group.a"])
            defer { host.send(signal: SIGKILL); directory.remove() }
            let watcher = try await ExtensionHostClient.connect(to: directory.socket, options: Self.clientOptions)
            let writer = try await ExtensionHostClient.connect(to: directory.socket, options: Self.clientOptions)
            defer { watcher.close(); writer.close() }
            let watching = try await watcher.sharedPreferences(appGroup: "group.a")
            let writing = try await writer.sharedPreferences(appGroup: "group.a")
            let changes = watching.changes(keys: ["k"])
            let collected = Task {
                var seen: [PreferenceChange] = []
                for try await change in changes {
                    seen.append(change)
                    if seen.count == 2 { break }
                }
                return seen
            }
            // The stream may subscribe after the first writes: write until the collector has seen
            // two changes (each round is three round trips, which paces it).
            let writes = Task {
                var value = 0
                while !Task.isCancelled {
                    value += 1
                    try await writing.setString("other", "x")
                    try await writing.setInt("k", value)
                    try await writing.remove("k")
                }
            }
            let seen = try await collected.value
            writes.cancel()
            _ = await writes.result
            #expect(seen.count == 2)
            #expect(seen.allSatisfy { $0.key == "k" })
        }
    }

    @Test func invokeMethodOnAnyChannelAndNotImplemented() async throws {
        try await withHangGuard {
            let (directory, host) = try await startHost(["--echo"])
            defer { host.send(signal: SIGKILL); directory.remove() }
            let client = try await ExtensionHostClient.connect(to: directory.socket, options: Self.clientOptions)
            defer { client.close() }
            let items = try await client.invokeMethod("getInputItems", onChannel: "channelbridge/extension")
            #expect(items.listValue?.count == 1)
            do {
                _ = try await client.invokeMethod("nope", onChannel: "channelbridge/extension")
                Issue.record("nope is not a method")
            } catch let error as ChannelError {
                #expect(error.code == .notImplemented)
                #expect(error.channel == "channelbridge/extension")
                #expect(error.method == "nope")
            }
        }
    }

    @Test func pendingCallsFailWithATypedErrorWhenTheHostGoesAway() async throws {
        try await withHangGuard {
            let (directory, host) = try await startHost()
            defer { directory.remove() }
            let client = try await ExtensionHostClient.connect(to: directory.socket, options: Self.clientOptions)
            defer { client.close() }
            host.send(signal: SIGKILL)
            _ = await host.waitForExit()
            do {
                _ = try await client.items()
                Issue.record("the host is gone")
            } catch let error as ChannelError {
                #expect(error.code == .connectionClosed)
                #expect(error.channel == "channelbridge/extension")
                #expect(error.method == "getInputItems")
            }
        }
    }

    @Test func connectingToNothingIsATypedError() async throws {
        await #expect(throws: (any Error).self) {
            _ = try await ExtensionHostClient.connect(to: "/tmp/cb-no-host-\(getpid()).sock")
        }
    }
}

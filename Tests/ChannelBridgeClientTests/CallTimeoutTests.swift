import ChannelBridgeChannels
import ChannelBridgeClient
import ChannelBridgeCodec
import ChannelBridgeSocket
import ChannelBridgeTestSupport
import Testing

/// The clients' call timeouts against a scripted host that takes every call and never replies.
@Suite struct CallTimeoutTests {
    /// Records each call on the extension and preference channels and answers none of them (its
    /// handlers wait until the call is withdrawn).
    final class SilentHost: Sendable {
        let directory: TestDirectory
        let listener: SocketListener
        let calls = Inbox<String>()

        init() throws {
            let directory = try TestDirectory()
            let calls = calls
            self.directory = directory
            listener = try SocketListener(path: directory.socket) { connection in
                for name in [ExtensionHostClient.extensionChannelName, SharedPreferencesClient.channelName] {
                    MethodChannel(name: name, messenger: connection.messenger).setMethodCallHandler { call in
                        calls.put(call.method)
                        try await untilCancelled()
                        return .null
                    }
                }
            }
        }

        func stop() {
            listener.close()
            directory.remove()
        }
    }

    /// The call's deadline is under test, not the connect's: a sanitized build under load can
    /// take longer than the default 5 s to set a session up, and the hang guard bounds it.
    static let patientConnect = SocketConnection.Options(connectTimeout: .seconds(120))

    @Test func aSharedPreferencesCallTimesOutWithTheChannelsError() async throws {
        try await withHangGuard {
            let host = try SilentHost()
            defer { host.stop() }
            let client = try await ExtensionHostClient.connect(to: host.directory.socket, options: Self.patientConnect)
            defer { client.close() }
            var prefs = try await client.sharedPreferences()
            #expect(prefs.callTimeout == .seconds(30))
            prefs.callTimeout = .milliseconds(200)
            let error = await #expect(throws: ChannelError.self) { _ = try await prefs.getString("k") }
            #expect(error?.code == .timedOut)
            #expect(error?.channel == SharedPreferencesClient.channelName)
            #expect(error?.method == "getString")
            #expect(await host.calls.next() == "getString")
        }
    }

    @Test func theHostClientsCallTimeoutReachesItsPreferencesClient() async throws {
        try await withHangGuard {
            let host = try SilentHost()
            defer { host.stop() }
            let client = try await ExtensionHostClient.connect(
                to: host.directory.socket, options: Self.patientConnect,
                callTimeout: .milliseconds(200))
            defer { client.close() }
            #expect(client.callTimeout == .milliseconds(200))
            let itemsError = await #expect(throws: ChannelError.self) { _ = try await client.items() }
            #expect(itemsError?.code == .timedOut)
            let prefs = try await client.sharedPreferences()
            #expect(prefs.callTimeout == .milliseconds(200))
            let error = await #expect(throws: ChannelError.self) { try await prefs.remove("k") }
            #expect(error?.code == .timedOut)
        }
    }
}

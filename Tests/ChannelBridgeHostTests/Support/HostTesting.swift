import ChannelBridgeTestSupport
import ChannelBridgeChannels
import ChannelBridgeCodec
import ChannelBridgeSocket
import Foundation
import Testing
import ChannelBridgeMessenger

/// Starting hosts and talking to them, shared by the process tests.
enum HostTesting {
    static let prefsChannel = "shared_preference_app_group"
    static let extensionChannel = "channelbridge/extension"
    /// What the tests connect to a host with: the defaults, the connect timeout stretched as hang
    /// guards are, so that a host slowed down by a sanitizer is not taken for a missing one.
    static let clientOptions = SocketConnection.Options(connectTimeout: .seconds(HangGuardScale.scaled(5)))

    /// Starts a host on `directory`'s socket and data directory with `arguments` added, and waits
    /// for its ready line, which must name the socket.
    static func start(
        _ directory: TestDirectory, _ arguments: [String] = [], product: String = "extension-host"
    ) async throws -> HostProcess {
        let host = try HostProcess(
            ["--socket", directory.socket, "--data-dir", directory.data] + arguments, product: product)
        let ready = try await host.readyLine()
        #expect(ready == "ready \(directory.socket)")
        return host
    }

    /// A client session on the host's socket.
    static func connect(_ directory: TestDirectory) async throws -> SocketConnection {
        let connection = try await SocketConnection.connect(to: directory.socket, options: HostTesting.clientOptions)
        _ = try await connection.messenger.waitForPeerHello()
        return connection
    }

    static func methods(_ connection: SocketConnection, _ name: String = extensionChannel) -> MethodChannel {
        MethodChannel(name: name, messenger: connection.messenger)
    }

    /// The JSON object of a completion record line, parsed.
    static func record(_ line: String?) throws -> [String: Any] {
        let line = try #require(line)
        return try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
    }

    static func map(_ pairs: KeyValuePairs<String, StandardValue>) -> StandardValue {
        .map(pairs.map { StandardValue.MapEntry(.string($0.key), $0.value) })
    }
}

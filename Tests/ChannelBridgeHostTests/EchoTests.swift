import ChannelBridgeTestSupport
import ChannelBridgeChannels
import ChannelBridgeCodec
import ChannelBridgeSocket
import Testing

/// `--echo`: `channelbridge/echo` answers every message with exactly the bytes it got.
@Suite struct EchoTests {
    @Test func theEchoChannelRepliesWithIdenticalBytes() async throws {
        let directory = try TestDirectory()
        defer { directory.remove() }
        try await withHangGuard {
            let host = try await HostTesting.start(directory, ["--echo"])
            let connection = try await HostTesting.connect(directory)
            let echo = BasicMessageChannel(
                name: "channelbridge/echo", messenger: connection.messenger, codec: BinaryCodec())
            var generator = SystemRandomNumberGenerator()
            let messages: [[UInt8]] = [
                [], [0], Array(0...255), [UInt8](repeating: 0xff, count: 7),
                (0..<(1 << 20)).map { _ in UInt8.random(in: 0...255, using: &generator) },
            ]
            for message in messages {
                #expect(try await echo.send(message) == message)
            }
            #expect(try await echo.send(nil) == nil)
            _ = try await HostTesting.methods(connection).invokeMethod("exit")
            #expect(await host.waitForExit().status == 0)
        }
    }

    @Test func withoutEchoTheChannelHasNoHandler() async throws {
        let directory = try TestDirectory()
        defer { directory.remove() }
        try await withHangGuard {
            let host = try await HostTesting.start(directory)
            let connection = try await HostTesting.connect(directory)
            let echo = BasicMessageChannel(
                name: "channelbridge/echo", messenger: connection.messenger, codec: BinaryCodec())
            // A null reply: nothing handles the channel.
            #expect(try await echo.send([1, 2, 3]) == nil)
            _ = try await HostTesting.methods(connection).invokeMethod("exit")
            #expect(await host.waitForExit().status == 0)
        }
    }
}

import ChannelBridgeChannels
import ChannelBridgeCodec
import ChannelBridgeMessenger
import ChannelBridgeSocket
import ChannelBridgeTestSupport
import Testing

/// A host serving real Pigeon-generated code (`pigeon-host-example`: Examples/PigeonAPI's
/// `ShareHostApiSetup.setUp(binaryMessenger:api:)` through `ExtensionHostCommand.main(plugins:)`),
/// isolated by default (Protocol/extension-host.md §1.8), with real worker processes.
@Suite struct PigeonIsolationTests {
    static let add = "dev.flutter.pigeon.pigeon_api_example.ShareHostApi.add"

    static func adder(_ connection: SocketConnection) -> BasicMessageChannel<StandardMessageCodec> {
        BasicMessageChannel(name: add, messenger: connection.messenger, codec: StandardMessageCodec())
    }

    /// Pigeon's `add` as its Dart side calls it: `[a, b]` in, `[a + b]` out.
    static func sum(_ a: Int64, _ b: Int64, on connection: SocketConnection) async throws -> Int? {
        try await adder(connection).send([.int64(a), .int64(b)])?.listValue?.first?.intValue
    }

    /// `["x", 1]` to `add`, which declares two ints: the generated `args[0] as! Int64` traps. The
    /// sender gets GOODBYE `sessionCrashed` naming the signal and the channel; another client of
    /// the same API keeps answering; the host logs the crash and ends on `exit` as usual.
    @Test func aWrongShapeMessageEndsOnlyItsSendersSession() async throws {
        let directory = try TestDirectory()
        defer { directory.remove() }
        try await withHangGuard(seconds: 60) {
            // No --isolation: a host with plugins of its own isolates its sessions by default.
            let host = try HostProcess(
                ["--socket", directory.socket, "--data-dir", directory.data], product: "pigeon-host-example")
            #expect(try await host.readyLine() == "ready \(directory.socket)")
            let healthy = try await HostTesting.connect(directory)
            let sender = try await HostTesting.connect(directory)
            #expect(try await Self.sum(2, 40, on: healthy) == 42)
            #expect(try await Self.sum(1, 1, on: sender) == 2)

            await #expect(throws: ChannelError.self) {
                _ = try await Self.adder(sender).send([.string("x"), .int64(1)])
            }
            await sender.waitUntilClosed()
            let reason = "the session's worker died by SIGABRT in the handler of channel '\(Self.add)'"
            #expect(
                sender.messenger.closeError
                    == MessengerError(.connectionClosed, "the process serving this session crashed: \(reason)"))

            #expect(try await Self.sum(-5, 3, on: healthy) == -2)
            #expect(healthy.messenger.closeError == nil)

            _ = try await HostTesting.methods(healthy).invokeMethod("exit", arguments: ["done"])
            let exit = await host.waitForExit()
            #expect(!exit.bySignal && exit.status == 0)
            #expect(
                exit.stdoutLines == [
                    "ready \(directory.socket)",
                    #"{"outcome":"completed","returnedItems":["done"],"error":null,"openedURLs":[]}"#,
                ])
            let logged = exit.stderr.split(separator: "\n").map(String.init)
            #expect(
                logged.contains {
                    $0.hasPrefix("extension-host: [session 2] the session's worker (pid ")
                        && $0.hasSuffix(") died by SIGABRT in the handler of channel '\(Self.add)'")
                }, "\(exit.stderr)")
            #expect(
                logged.contains("pigeon-host-example: fatal signal SIGABRT in the handler of channel '\(Self.add)'"),
                "\(exit.stderr)")
        }
    }
}

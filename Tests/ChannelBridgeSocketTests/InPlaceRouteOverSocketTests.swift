import ChannelBridgeMessenger
import ChannelBridgeSocket
import ChannelBridgeTestSupport
import Testing

/// The in-place handler a socket connection's reader remembers (`MessengerConnection+InPlaceRoute`)
/// is let go when the reader ends: a handler that holds what holds the connection
/// would otherwise keep both alive after the session (the handler table lets go at the close).
@Suite struct InPlaceRouteOverSocketTests {
    /// Something the handler holds, whose end is observed.
    final class Held: Sendable {
        let ended: AsyncStream<Void>.Continuation
        init(ended: AsyncStream<Void>.Continuation) { self.ended = ended }
        deinit {
            ended.yield(())
            ended.finish()
        }
    }

    @Test func theRememberedHandlerIsLetGoWhenTheReaderEnds() async throws {
        try await withHangGuard(seconds: 60) { () async throws in
            let directory = try TestDirectory()
            defer { directory.remove() }
            let path = directory.path + "/raw-host.sock"
            let listener = try RawPeer.listen(on: path)
            let client = try await SocketConnection.connect(to: path, options: .forTests)
            let host = try RawPeer(accepting: listener)
            let (ended, endedContinuation) = AsyncStream.makeStream(of: Void.self)
            do {
                let held = Held(ended: endedContinuation)
                client.messenger.installHandler(onChannel: "c") { _, reply in
                    withExtendedLifetime(held) {}
                    if reply.isEmpty { reply = [0] }
                    reply[0] = 1
                    return .written(count: 1)
                }
            }
            // Two requests on the channel: the second is answered by the remembered handler.
            try host.write([
                .hello(Frame.Hello(role: .host, peerName: "raw host")),
                .request(id: 1, channel: "c", payload: [9]), .request(id: 2, channel: "c", payload: [9]),
            ])
            let frames = try await onThread { Result { try host.readFrames(3) } }.get()
            #expect(
                Array(frames.dropFirst()) == [.reply(id: 1, result: .bytes([1])), .reply(id: 2, result: .bytes([1]))])
            // The host hangs up; the client's reader reads the end and ends.
            host.close()
            await client.waitUntilClosed()
            var endings = ended.makeAsyncIterator()
            #expect(await endings.next() != nil, "the handler was let go")
        }
    }
}

import ChannelBridgeChannels
import ChannelBridgeCodec
import ChannelBridgeMessenger
import ChannelBridgeSocket
import ChannelBridgeTestSupport
import Glibc
import Testing

/// A synchronous method-call handler runs on the connection's reader thread, as the request is
/// read, with no task started for it.
@Suite struct SynchronousHandlerOverSocketTests {
    @Test func runsOnTheReaderThreadWithoutATask() async throws {
        try await withHangGuard { () async throws in
            let directory = try TestDirectory()
            defer { directory.remove() }
            let listener = try SocketListener(path: directory.path + "/h.sock") { connection in
                // An async handler's synchronous part starts on the reader thread too: it names it.
                MethodChannel(name: "thread", messenger: connection.messenger).setMethodCallHandler { _ in
                    .int(Int(bitPattern: UInt(pthread_self())))
                }
                MethodChannel(name: "sync", messenger: connection.messenger).setSynchronousMethodCallHandler { _ in
                    .list([.int(Int(bitPattern: UInt(pthread_self()))), .bool(withUnsafeCurrentTask { $0 != nil })])
                }
            }
            let client = try await SocketConnection.connect(to: listener.path)
            let reader = try await MethodChannel(name: "thread", messenger: client.messenger).invokeMethod("which")
            for _ in 0..<3 {
                let answer = try await MethodChannel(name: "sync", messenger: client.messenger).invokeMethod("which")
                #expect(answer == .list([reader, .bool(false)]))
            }
            client.close()
            await client.waitUntilClosed()
            listener.close()
            await listener.waitUntilClosed()
        }
    }

    /// An immediate handler (issue 18) runs on the reader thread with no task when it answers at
    /// once, and only its `.later` work runs in a task. An answer given at once hands its handler
    /// slot back at once: with one slot, 50 requests in one write are all answered (a slot kept
    /// would hold the second request unread for good).
    @Test func immediateAnswersNeedNoTaskAndGiveTheirSlotBack() async throws {
        try await withHangGuard { () async throws in
            let options = SocketListener.Options(connection: .init(maxHandlersInFlight: 1))
            let (listener, directory) = try SocketConnectionTests.serve(options: options) { connection in
                connection.messenger.setImmediateMessageHandler(onChannel: "immediate") { message in
                    let inTask: UInt8 = withUnsafeCurrentTask { $0 != nil } ? 1 : 0
                    guard message == [2] else { return .now(MessageSegments([message?.first ?? 0, inTask])) }
                    return .later { HandlerReply(MessageSegments([2, withUnsafeCurrentTask { $0 != nil } ? 1 : 0])) }
                }
            }
            defer { directory.remove() }
            let peer = try RawPeer(path: listener.path)
            defer { peer.close() }
            let count = 50
            try peer.write([RawPeer.hello()] + (1...count).map {
                .request(id: UInt32($0), channel: "immediate", payload: [$0 == 2 ? 2 : 1])
            })
            let frames = try await onThread { Result { try peer.readFrames(1 + count) } }.get()
            var replies: [UInt32: Frame.Reply] = [:]
            for case .reply(let id, let result) in frames { replies[id] = result }
            #expect(replies.count == count)
            for id in 1...UInt32(count) {
                // [what was asked, whether a task ran the answer]
                #expect(replies[id] == .bytes(id == 2 ? [2, 1] : [1, 0]), "reply \(id)")
            }
            listener.close()
            await listener.waitUntilClosed()
        }
    }
}

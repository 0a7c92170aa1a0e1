import ChannelBridgeChannels
import ChannelBridgeCodec
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
}

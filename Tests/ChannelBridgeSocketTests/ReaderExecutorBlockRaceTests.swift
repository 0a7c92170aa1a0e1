import ChannelBridgeMessenger
@_spi(Benchmarks) import ChannelBridgeSocket
import ChannelBridgeTestSupport
import Testing

/// The reader executor's blocked flag, raced: a task that prefers the reader thread, started from
/// another thread just as the reader finishes a delivery and goes back to block in `read`, either
/// runs on the reader before it blocks or goes to the global executor. Never is it queued for a
/// reader that has blocked: with no traffic after it, such a job would wait for good, and the hang
/// guard would fail the test.
@Suite struct ReaderExecutorBlockRaceTests {
    @Test func aJobEnqueuedAsTheReaderBlocksAlwaysRuns() async throws {
        try await withHangGuard { () async throws in
            let (listener, directory) = try SocketConnectionTests.serve { connection in
                connection.messenger.setMessageHandler(onChannel: "echo") { $0 }
            }
            defer { directory.remove() }
            let client = try await SocketConnection.connect(
                to: listener.path, options: SocketConnection.Options(runsTasksOnReaderThread: true))
            let executor = client.executor
            var ran = 0
            for round in 0..<500 {
                // The reply is delivered on the reader thread, which then goes back to `read`;
                // the job below is enqueued from this task's thread meanwhile.
                let mark = [UInt8(truncatingIfNeeded: round)]
                #expect(try await client.messenger.send(onChannel: "echo", message: mark) == mark)
                ran += await Task(executorPreference: executor) { 1 }.value
            }
            #expect(ran == 500)
            client.close()
            await client.waitUntilClosed()
            listener.close()
            await listener.waitUntilClosed()
        }
    }
}

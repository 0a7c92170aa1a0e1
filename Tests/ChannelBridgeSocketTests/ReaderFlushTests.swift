import ChannelBridgeMessenger
import ChannelBridgeSocket
import ChannelBridgeTestSupport
import Dispatch
import Glibc
import Testing

/// Replies the reader thread queues while it works through one read leave before that read is
/// done, once a few KiB have gathered, so that a busy peer can work on them meanwhile.
@Suite struct ReaderFlushTests {
    @Test func repliesLeaveWhileTheReaderIsStillDelivering() async throws {
        try await withHangGuard { () async throws in
            let directory = try TestDirectory()
            defer { directory.remove() }
            let release = DispatchSemaphore(value: 0)
            let listener = try SocketListener(path: directory.path + "/h.sock") { connection in
                connection.messenger.setMessageHandler(onChannel: "answer") { _ in [UInt8](repeating: 7, count: 100) }
                connection.messenger.setMessageHandler(onChannel: "block") { _ in
                    // Holds the reader thread (the handler starts on it) until the client has
                    // seen the earlier replies, or gives up after a while.
                    let released = release.wait(timeout: .now() + 15) == .success
                    return [released ? 1 : 0]
                }
            }
            let path = listener.path
            // HELLO, 40 small requests and one that blocks, in one write: one read's worth.
            var bytes = try FrameEncoder.encode(.hello(.init(role: .client, peerName: "raw")))
            for id in 1...40 {
                bytes += try FrameEncoder.encode(.request(id: UInt32(id), channel: "answer", payload: [1]))
            }
            bytes += try FrameEncoder.encode(.request(id: 41, channel: "block", payload: nil))
            let request = bytes
            let outcome = await onThread { () -> (early: Int, blockReply: Frame.Reply?) in
                let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
                defer { close(fd) }
                guard RawClient.connect(fd: fd, path: path) == 0 else { return (-1, nil) }
                _ = request.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                var decoder = FrameDecoder(maxFrameLength: 1 << 20)
                var early = 0
                var blockReply: Frame.Reply?
                var chunk = [UInt8](repeating: 0, count: 65536)
                // Reads what comes within 5 s (stretched like a hang guard in sanitized builds);
                // false when nothing more does.
                func readMore() -> Bool {
                    var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
                    guard poll(&poller, 1, Int32(HangGuardScale.scaled(5) * 1000)) > 0 else { return false }
                    let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
                    guard count > 0 else { return false }
                    decoder.append(Array(chunk[..<count]))
                    while let frame = try? decoder.next() {
                        guard case .reply(let id, let result) = frame else { continue }
                        if id == 41 { blockReply = result } else if blockReply == nil { early += 1 }
                    }
                    return true
                }
                // Replies that come while "block" holds the reader: a flush's worth (2 KiB is 19
                // of these 110-byte replies) is enough.
                while early < 19, readMore() {}
                let earlyCount = early
                release.signal()
                while blockReply == nil, readMore() {}
                return (earlyCount, blockReply)
            }
            // Without sending early all 41 replies would wait for the blocked handler.
            #expect(outcome.early >= 19, "replies before the blocking handler returned: \(outcome.early)")
            #expect(outcome.blockReply == .bytes([1]))
            listener.close()
            await listener.waitUntilClosed()
        }
    }
}

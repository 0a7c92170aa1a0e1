import ChannelBridgeBytes
import ChannelBridgeChannels
import ChannelBridgeCodec
import ChannelBridgeMessenger
@_spi(Benchmarks) import ChannelBridgeSocket
import ChannelBridgeTestSupport
import Glibc
import Synchronization
import Testing

/// The flow-control rules of wire protocol §4.10 over real sockets, at a small scale: what is
/// asserted is counts and bytes, each after an event the code under test signals, never a time.
@Suite struct FlowControlTests {
    static let highWater = 64 << 10, lowWater = 16 << 10

    static func options(
        maxHandlers: Int = 64, highWater: Int = highWater, lowWater: Int = lowWater
    ) -> SocketListener.Options {
        SocketListener.Options(
            connection: .init(
                outboundHighWater: highWater, outboundLowWater: lowWater,
                maxHandlersInFlight: maxHandlers))
    }

    @Test func aPeerThatStopsReadingIsThrottledAndResumes() async throws {
        try await withHangGuard(seconds: 60) { () async throws in
            let replySize = 16 << 10, count = 400  // 6.4 MiB of replies: far beyond any socket buffer
            let handled = Atomic<Int>(0)
            let accepted = Collector<SocketConnection>()
            let (listener, directory) = try SocketConnectionTests.serve(options: Self.options()) { connection in
                accepted.append(connection)
                connection.messenger.installAnsweringNow(onChannel: "big") { message in
                    handled.add(1, ordering: .relaxed)
                    return Payload([UInt8](repeating: message![0], count: replySize))
                }
                connection.messenger.setMessageHandler(onChannel: "echo") { $0 }
            }
            defer { directory.remove() }
            let peer = try RawPeer(path: listener.path)
            defer { peer.close() }
            try peer.write(
                [RawPeer.hello()]
                    + (1...count).map { .request(id: UInt32($0), channel: "big", payload: [UInt8($0 & 0xFF)]) })
            let host = try await accepted.first(1)[0]
            await host.messenger.waitUntilInputHeld()

            // Held back: not every request ran, and the answers queued in this process are bounded.
            #expect(handled.load(ordering: .relaxed) < count)
            #expect(host.outboundFlow.isAnswerBacklogged)
            #expect(host.unsentByteCounts.answers <= Self.highWater + replySize + 16)
            // Another connection is served meanwhile.
            let other = try await SocketConnection.connect(to: listener.path, options: .forTests)
            #expect(try await other.messenger.send(onChannel: "echo", message: [7]) == [7])

            // The peer reads: every request is answered, in order; nothing was dropped.
            let frames = try await onThread { Result { try peer.readFrames(1 + count) } }.get()
            #expect(frames.count == 1 + count)
            for (index, frame) in frames.dropFirst().enumerated() {
                let id = index + 1
                #expect(
                    frame
                        == .reply(
                            id: UInt32(id), result: .bytes([UInt8](repeating: UInt8(id & 0xFF), count: replySize))))
            }
            #expect(handled.load(ordering: .relaxed) == count)
            other.close()
            listener.close()
            await listener.waitUntilClosed()
        }
    }

    /// Small replies, one per read: the reader thread leaves each for the end of its delivery and
    /// sends it under the transport's lock (`flushDeferred`). Once the socket is full, the reader
    /// takes the flush role for what the socket did not take and hands it to the writer thread.
    /// Held back and resumed as with large replies; nothing lost, nothing out of order.
    /// With a synchronous handler, each reply is left for the end of its delivery; with an
    /// in-place one, the reply to a read's last request is sent at once when the socket takes it
    /// (`writeAtEndOfDelivery`), and left for the end of the delivery when it does not. Either way
    /// the replies the full socket refused go out once the peer reads, the last one included.
    /// With a high-water mark under `readerFlushThreshold`, the host stops reading while the
    /// reader's own few refused replies are all that is queued: nothing written later pushes them
    /// out, so only the end of the delivery can.
    @Test(arguments: ["synchronous", "in place"], [64 << 10, 1_500])
    func smallRepliesOneReadAtATimeAreThrottledAndResume(handler kind: String, highWater: Int) async throws {
        try await withHangGuard(seconds: 60) { () async throws in
            let replySize = 1_000, count = 2_000  // 2 MB of replies: beyond any socket buffer
            enum Event { case handled, held }
            let (events, eventSink) = AsyncStream.makeStream(of: Event.self)
            let accepted = Collector<SocketConnection>()
            let options = Self.options(highWater: highWater, lowWater: min(Self.lowWater, highWater / 3))
            let (listener, directory) = try SocketConnectionTests.serve(options: options) { connection in
                accepted.append(connection)
                if kind == "in place" {
                    connection.messenger.installHandler(onChannel: "big") { message, reply in
                        eventSink.yield(.handled)
                        if reply.count < replySize { reply = [UInt8](repeating: 0, count: replySize) }
                        let byte = message.bytes![0]
                        for index in 0..<replySize { reply[index] = byte }
                        return .written(count: replySize)
                    }
                } else {
                    connection.messenger.installAnsweringNow(onChannel: "big") { message in
                        eventSink.yield(.handled)
                        return Payload([UInt8](repeating: message![0], count: replySize))
                    }
                }
            }
            defer { directory.remove() }
            let peer = try RawPeer(path: listener.path)
            defer { peer.close() }
            let requests: [Frame] = (1...count).map {
                .request(id: UInt32($0), channel: "big", payload: [UInt8($0 & 0xFF)])
            }
            try peer.write([RawPeer.hello()])
            let host = try await accepted.first(1)[0]
            Task {
                await host.messenger.waitUntilInputHeld()
                eventSink.yield(.held)
            }
            // Each request is written once the one before it was handled, so each read holds one
            // and each delivery leaves one reply; until the host holds its input.
            var pending = events.makeAsyncIterator()
            var written = 0
            writing: while written < count {
                try peer.write([requests[written]])
                written += 1
                switch await pending.next() {
                case .handled: continue
                case .held, nil: break writing
                }
            }
            #expect(written < count)
            #expect(host.outboundFlow.isAnswerBacklogged)
            #expect(host.unsentByteCounts.answers <= highWater + replySize + 16)

            // The rest of the requests, then the peer reads: every request is answered, in order.
            try peer.write(Array(requests[written...]))
            let frames = try await onThread { Result { try peer.readFrames(1 + count) } }.get()
            #expect(frames.count == 1 + count)
            for (index, frame) in frames.dropFirst().enumerated() {
                let id = index + 1
                #expect(
                    frame
                        == .reply(
                            id: UInt32(id), result: .bytes([UInt8](repeating: UInt8(id & 0xFF), count: replySize))))
            }
            eventSink.finish()
            listener.close()
            await listener.waitUntilClosed()
        }
    }

    /// A task resumed on the reader thread as the only job of its round sends what it writes at
    /// once, in the lock that queues it. When the full socket refuses such a frame, the
    /// frame is left for the reader's end of round, which sends it once the peer reads: here the
    /// task writes nothing after it, so nothing else would (a mutant that drops the hand-over
    /// hangs here).
    @Test func aFrameARunningJobWritesIntoAFullSocketGoesOutOnceThePeerReads() async throws {
        try await withHangGuard(seconds: 60) { () async throws in
            let directory = try TestDirectory()
            defer { directory.remove() }
            let path = directory.path + "/raw-host.sock"
            let listener = try RawPeer.listen(on: path)
            var options = SocketConnection.Options(runsTasksOnReaderThread: true)
            options.socketSendBufferSize = 4_096  // the kernel's least: full after a few messages
            let client = try await SocketConnection.connect(to: path, options: options)
            let host = try RawPeer(accepting: listener)
            defer { host.close() }
            let readerThread = Locked<UInt>(0)
            client.messenger.installAnsweringNow(onChannel: "thread") { _ in
                readerThread.set(UInt(pthread_self()))
                return nil
            }
            try host.write([
                .hello(Frame.Hello(role: .host, peerName: "raw host")),
                .request(id: 1, channel: "thread", payload: nil),
            ])

            // The host answers each ping as it comes; the client's task pings until a reply
            // resumes it on the reader thread, as the only job of that round.
            let answering = Task.detached {
                var answered: [Frame] = []
                while true {
                    guard let frame = try host.readFrames(1).first else { return answered }
                    answered.append(frame)
                    guard case .request(let id, let channel, _) = frame else { continue }
                    try host.write([.reply(id: id, result: .bytes([UInt8(id & 0xFF)]))])
                    if channel == "stop" { return answered }
                }
            }
            let posted = try await withTaskExecutorPreference(client.executor) { () async throws -> Int in
                var onReader = false
                for _ in 0..<100 where !onReader {
                    _ = try await client.messenger.send(onChannel: "ping", message: [1])
                    onReader = readerThread.value != 0 && UInt(pthread_self()) == readerThread.value
                }
                try #require(onReader, "no reply resumed the task on the reader thread")
                // The host answers this one, then reads nothing until the messages below are written.
                _ = try await client.messenger.send(onChannel: "stop", message: nil)
                try #require(
                    UInt(pthread_self()) == readerThread.value,
                    "the last reply did not resume the task on the reader thread")
                // Messages until the socket refuses one; nothing is written after it.
                var posted = 0
                while client.unsentByteCounts.all == 0 {
                    try client.messenger.post(
                        onChannel: "fill", message: [UInt8](repeating: UInt8(posted & 0xFF), count: 1_000))
                    posted += 1
                }
                return posted
            }
            let seen = try await answering.value
            #expect(seen.contains { if case .request(_, "stop", _) = $0 { true } else { false } })
            // The host reads again: every message comes, the refused last one included.
            let frames = try await onThread { Result { try host.readFrames(posted) } }.get()
            #expect(frames.count == posted)
            for (index, frame) in frames.enumerated() {
                #expect(
                    frame == .message(channel: "fill", payload: [UInt8](repeating: UInt8(index & 0xFF), count: 1_000)))
            }
            client.close()
        }
    }

    @Test func requestsWaitWhileTheConnectionIsOverItsHighWaterMarkThenGo() async throws {
        try await withHangGuard(seconds: 60) { () async throws in
            let gate = Gate()
            // One handler at a time on the host, and the first one waits: the host soon stops reading.
            let (listener, directory) = try SocketConnectionTests.serve(options: Self.options(maxHandlers: 1)) {
                connection in
                connection.messenger.setMessageHandler(onChannel: "block") { _ in
                    await gate.wait()
                    return [1]
                }
                connection.messenger.setMessageHandler(onChannel: "echo") { $0 }
            }
            defer { directory.remove() }
            let client = try await SocketConnection.connect(
                to: listener.path, options: .init(outboundHighWater: Self.highWater, outboundLowWater: Self.lowWater))
            let payload = [UInt8](repeating: 0xEE, count: 32 << 10)
            try await withThrowingTaskGroup(of: Bool.self) { group in
                group.addTask { try await client.messenger.send(onChannel: "block", message: nil) == [1] }
                for index in 0..<40 {
                    group.addTask {
                        try await client.messenger.send(onChannel: "echo", message: payload + [UInt8(index)]) == payload
                            + [UInt8(index)]
                    }
                }
                // The requests fill the socket and this side's queue; then senders wait instead of queueing.
                await client.outboundFlow.waitUntil { !$0.isWritable && $0.waitingWriters >= 1 }
                #expect(client.unsentByteCounts.all <= Self.highWater + 40 * (payload.count + 32))
                gate.open()
                for try await ok in group { #expect(ok) }
            }
            #expect(client.outboundFlow.isWritable)
            client.close()
            await client.waitUntilClosed()
            listener.close()
            await listener.waitUntilClosed()
        }
    }

    @Test func aClosedConnectionsQueuedRequestsNeverRun() async throws {
        try await withHangGuard(seconds: 60) { () async throws in
            let started = Collector<UInt8>(), cancelled = Collector<UInt8>(), closed = Collector<MessengerError>()
            let accepted = Collector<SocketConnection>()
            let (listener, directory) = try SocketConnectionTests.serve(options: Self.options(maxHandlers: 1)) {
                connection in
                accepted.append(connection)
                connection.onClose { closed.append($0) }
                connection.messenger.setMessageHandler(onChannel: "work") { message in
                    started.append(message![0])
                    do { try await untilCancelled() } catch { cancelled.append(message![0]) }
                    return nil
                }
            }
            defer { directory.remove() }
            let peer = try RawPeer(path: listener.path)
            try peer.write(
                [RawPeer.hello()] + (1...20).map { .request(id: UInt32($0), channel: "work", payload: [UInt8($0)]) })
            let host = try await accepted.first(1)[0]
            try await started.first(1)
            await host.messenger.waitUntilInputHeld()
            // The client vanishes with 19 requests queued at the host.
            peer.close()
            let error = try await closed.first(1)[0]
            #expect(error.code == .connectionClosed)
            // The running handler is cancelled; none of the queued requests ever started.
            #expect(try await cancelled.first(1) == [1])
            #expect(started.all == [1])
            listener.close()
            await listener.waitUntilClosed()
            #expect(started.all == [1])
        }
    }

    @Test func theConnectionLimitRefusesWithItsGoodbyeAndServesAgainOnceOneCloses() async throws {
        try await withHangGuard(seconds: 60) { () async throws in
            let accepted = Collector<SocketConnection>()
            var options = SocketListener.Options()
            options.maxConnections = 2
            let (listener, directory) = try SocketConnectionTests.serve(options: options) { connection in
                accepted.append(connection)
                connection.messenger.setMessageHandler(onChannel: "echo") { $0 }
            }
            defer { directory.remove() }
            let first = try await SocketConnection.connect(to: listener.path, options: .forTests)
            let second = try await SocketConnection.connect(to: listener.path, options: .forTests)
            _ = try await first.messenger.waitForPeerHello()
            _ = try await second.messenger.waitForPeerHello()

            // The third gets GOODBYE tooManyConnections as its first and only frame.
            let raw = try RawPeer(path: listener.path)
            let frames = try await onThread { Result { try raw.readFrames() } }.get()
            raw.close()
            #expect(
                frames == [
                    .goodbye(code: .tooManyConnections, reason: "this host serves at most 2 connections at a time")
                ])
            // A Swift client sees it as a typed error.
            let fourth = try await SocketConnection.connect(to: listener.path, options: .forTests)
            await #expect(throws: MessengerError.self) { try await fourth.messenger.waitForPeerHello() }
            #expect(fourth.messenger.closeError?.code == .tooManyConnections)
            #expect(listener.refusedConnectionCount == 2)

            // Once one closes, a new client is served.
            first.close()
            await accepted.all[0].waitUntilClosed()
            let fifth = try await SocketConnection.connect(to: listener.path, options: .forTests)
            #expect(try await fifth.messenger.send(onChannel: "echo", message: [5]) == [5])
            for connection in [second, fifth] {
                connection.close()
                await connection.waitUntilClosed()
            }
            listener.close()
            await listener.waitUntilClosed()
        }
    }

    @Test func aConnectionWithoutAThreadIsRefusedAndTheListenerGoesOn() async throws {
        try await withHangGuard(seconds: 60) { () async throws in
            let readerStarts = Atomic<Int>(0)
            var options = SocketListener.Options()
            let startThread = options.startThread
            // The first reader thread cannot be created (as when the process is out of threads).
            options.startThread = { name, body in
                if name.hasPrefix("cb reader"), readerStarts.add(1, ordering: .relaxed).newValue == 1 { return EAGAIN }
                return startThread(name, body)
            }
            let (listener, directory) = try SocketConnectionTests.serve(options: options) { connection in
                connection.messenger.setMessageHandler(onChannel: "echo") { $0 }
            }
            defer { directory.remove() }
            let raw = try RawPeer(path: listener.path)
            let frames = try await onThread { Result { try raw.readFrames() } }.get()
            raw.close()
            guard case .goodbye(let code, let reason)? = frames.first, frames.count == 1 else {
                Issue.record("expected one GOODBYE, got \(frames)")
                return
            }
            #expect(code == .tooManyConnections)
            #expect(reason.contains("cannot start a thread"))
            let client = try await SocketConnection.connect(to: listener.path, options: .forTests)
            #expect(try await client.messenger.send(onChannel: "echo", message: [9]) == [9])
            client.close()
            await client.waitUntilClosed()
            listener.close()
            await listener.waitUntilClosed()
        }
    }

    @Test func aPeerThatNeverSaysHelloIsClosedWithAGoodbye() async throws {
        try await withHangGuard(seconds: 60) { () async throws in
            let options = SocketListener.Options(
                connection: .init(name: "timing host", helloTimeout: .milliseconds(200)))
            let (listener, directory) = try SocketConnectionTests.serve(options: options)
            defer { directory.remove() }
            let raw = try RawPeer(path: listener.path)
            let frames = try await onThread { Result { try raw.readFrames() } }.get()
            raw.close()
            #expect(
                frames == [
                    .hello(Frame.Hello(role: .host, peerName: "timing host")),
                    .goodbye(code: .protocolError, reason: "no HELLO within 0.2 s"),
                ])
            listener.close()
            await listener.waitUntilClosed()
        }
    }

    @Test func aReplyLargerThanThePeerAcceptsBecomesAnErrorReplyAndTheSessionGoesOn() async throws {
        try await withHangGuard(seconds: 60) { () async throws in
            let (listener, directory) = try SocketConnectionTests.serve { connection in
                connection.messenger.setMessageHandler(onChannel: "big") { _ in [UInt8](repeating: 1, count: 4096) }
                connection.messenger.setMessageHandler(onChannel: "echo") { $0 }
                MethodChannel(name: "methods", messenger: connection.messenger).setMethodCallHandler { call in
                    .string(String(repeating: "x", count: 4096))
                }
            }
            defer { directory.remove() }
            // This client accepts frames of at most 1 KiB and says so in its HELLO.
            let client = try await SocketConnection.connect(to: listener.path, options: .init(maxFrameLength: 1024))
            await #expect {
                try await client.messenger.send(onChannel: "big", message: [])
            } throws: { error in
                guard let error = error as? MessengerError else { return false }
                return error.code == .handlerFailed && error.channel == "big"
                    && error.message.hasPrefix("REPLY_TOO_LARGE: the reply on channel 'big' has 4096 bytes")
            }
            await #expect {
                try await MethodChannel(name: "methods", messenger: client.messenger).invokeMethod("fetch")
            } throws: { error in
                guard let error = error as? MethodError else { return false }
                return error.code == "REPLY_TOO_LARGE" && error.details["method"] == "fetch"
                    && error.details["channel"] == "methods" && error.message?.contains("channel methods") == true
            }
            // The session goes on.
            #expect(try await client.messenger.send(onChannel: "echo", message: [3]) == [3])
            client.close()
            await client.waitUntilClosed()
            listener.close()
            await listener.waitUntilClosed()
        }
    }

    @Test func requestsKeepToTheMaximumThePeerAnnounced() async throws {
        try await withHangGuard(seconds: 60) { () async throws in
            let options = SocketListener.Options(connection: .init(maxFrameLength: 1024))
            let (listener, directory) = try SocketConnectionTests.serve(options: options) { connection in
                connection.messenger.setMessageHandler(onChannel: "echo") { $0 }
            }
            defer { directory.remove() }
            let client = try await SocketConnection.connect(to: listener.path, options: .forTests)
            #expect(try await client.messenger.waitForPeerHello().maxFrameLength == 1024)
            await #expect {
                try await client.messenger.send(onChannel: "echo", message: [UInt8](repeating: 0, count: 2000))
            } throws: { error in
                (error as? MessengerError)?.code == .frameTooLarge
                    && (error as? MessengerError)?.message.contains("over the peer's maximum of 1024") == true
            }
            #expect(try await client.messenger.send(onChannel: "echo", message: [4]) == [4])
            client.close()
            await client.waitUntilClosed()
            listener.close()
            await listener.waitUntilClosed()
        }
    }
}

import ChannelBridgeChannels
import ChannelBridgeCodec
@_spi(Benchmarks) import ChannelBridgeMessenger
@_spi(Benchmarks) import ChannelBridgeSocket
import ChannelBridgeTestSupport
import Glibc
import Testing

/// Calls that wait for their reply by reading the socket themselves, on the reader thread
/// (`MessengerConnection+DrivenCalls`, `SocketTransport+Driving`), against a raw host
/// played by the test: that they drive when nothing else needs the thread and only then, that
/// whatever else is read meanwhile is served, and that a driven call ends at once on a cancel or
/// at the end of the session, with the peer silent.
@Suite struct DrivenCallTests {
    /// One client connection (tasks on its reader thread) to a raw host on a thread of its own.
    /// The host answers `test/methods` calls: `echo` with its argument; `hang` never (it reports
    /// the request instead); `askBack` by first calling the client's `client/echo` with its
    /// argument and answering with what that returned; `hangUp` by closing the socket. Every
    /// frame it reads goes to `seen`.
    struct Session: Sendable {
        let client: SocketConnection
        let methods: MethodChannel
        let readerThread: Locked<UInt>
        let seen: AsyncStream<Frame>

        /// Runs `body` in a task that prefers the reader executor, inside one call scope, once a
        /// reply has resumed it on the reader thread as the only job of its round. (A task that
        /// reaches the reader thread as one of several jobs, queued there by another thread,
        /// does not drive; its next call, made on the reader thread, always suspends before its
        /// reply can be read, and that reply resumes it alone.)
        func onReader<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) async throws -> T {
            try await withTaskExecutorPreference(client.executor) {
                try await client.messenger.withCallScope {
                    var calls = 0
                    while UInt(pthread_self()) != readerThread.value {
                        calls += 1
                        try #require(calls <= 1_000, "no reply resumed the task on the reader thread")
                        _ = try await methods.invokeMethod("echo", arguments: .null)
                    }
                    _ = try await methods.invokeMethod("echo", arguments: .null)
                    return try await body()
                }
            }
        }

        /// The next frame the host read that `matches`.
        func nextSeen(_ matches: (Frame) -> Bool) async -> Frame? {
            for await frame in seen where matches(frame) { return frame }
            return nil
        }
    }

    static func withSession(_ body: @escaping @Sendable (Session) async throws -> Void) async throws {
        try await withHangGuard(seconds: 60) { () async throws in
            let directory = try TestDirectory()
            defer { directory.remove() }
            let path = directory.path + "/raw-host.sock"
            let listener = try RawPeer.listen(on: path)
            let client = try await SocketConnection.connect(to: path, options: .init(runsTasksOnReaderThread: true))
            let host = try RawPeer(accepting: listener)
            let readerThread = Locked<UInt>(0)
            client.messenger.installAnsweringNow(onChannel: "thread") { _ in
                readerThread.set(UInt(pthread_self()))
                return nil
            }
            MethodChannel(name: "client/echo", messenger: client.messenger).setSynchronousMethodCallHandler {
                $0.arguments
            }
            let (seen, seenFrames) = AsyncStream.makeStream(of: Frame.self)
            try host.write([
                .hello(Frame.Hello(role: .host, peerName: "raw host")),
                .request(id: 1, channel: "thread", payload: nil),
            ])
            let hosting = Task { await onThread { Self.serve(host, reporting: seenFrames) } }
            let session = Session(
                client: client, methods: MethodChannel(name: "test/methods", messenger: client.messenger),
                readerThread: readerThread, seen: seen)
            try await body(session)
            client.close()
            await client.waitUntilClosed()
            await hosting.value
            host.close()
        }
    }

    /// The host's loop (see `Session`); returns when the client closes or it hangs up.
    static func serve(_ host: RawPeer, reporting seen: AsyncStream<Frame>.Continuation) {
        defer { seen.finish() }
        let codec = StandardMethodCodec()
        var nextID: UInt32 = 100
        while let frame = try? host.readFrames(1).first {
            seen.yield(frame)
            guard case .request(let id, "test/methods", let payload) = frame, let payload,
                let call = try? codec.decodeMethodCall(payload)
            else { continue }
            switch call.method {
            case "echo":
                try? host.write([.reply(id: id, result: .bytes(try! codec.encodeSuccessEnvelope(call.arguments)))])
            case "askBack":
                nextID += 1
                let asked = nextID
                try? host.write([
                    .request(
                        id: asked, channel: "client/echo",
                        payload: try! codec.encodeMethodCall(MethodCall("echo", arguments: call.arguments)))
                ])
                let frames =
                    (try? host.readFrames(until: { if case .reply(asked, _) = $0 { true } else { false } })) ?? []
                for frame in frames { seen.yield(frame) }
                guard case .reply(_, .bytes(let envelope)) = frames.last,
                    let value = try? codec.decodeEnvelope(envelope).get()
                else { return }
                try? host.write([.reply(id: id, result: .bytes(try! codec.encodeSuccessEnvelope(value)))])
            case "hangUp":
                Glibc.shutdown(host.fd, Int32(SHUT_RDWR))
                return
            default:  // "hang": never answered
                break
            }
        }
    }

    @Test func aCallAloneOnTheReaderThreadReadsItsOwnReply() async throws {
        try await Self.withSession { session in
            let (driven, replies) = try await session.onReader { () async throws -> (Int, [StandardValue]) in
                let before = session.client.messenger.drivenWaitCount
                var replies: [StandardValue] = []
                for n in 0..<50 {
                    replies.append(try await session.methods.invokeMethod("echo", arguments: .int32(Int32(n))))
                }
                #expect(UInt(pthread_self()) == session.readerThread.value)
                return (session.client.messenger.drivenWaitCount - before, replies)
            }
            #expect(replies == (0..<50).map { .int32(Int32($0)) })
            #expect(driven == 50)
        }
    }

    @Test func aCallWithAnotherInFlightWaitsOnItsContinuation() async throws {
        try await Self.withSession { session in
            // A call outside any scope, never answered, is in flight while the task calls.
            let other = Task { try await session.client.messenger.send(onChannel: "not/answered", message: [1]) }
            _ = await session.nextSeen { if case .request(_, "not/answered", _) = $0 { true } else { false } }
            let (driven, reply) = try await session.onReader { () async throws -> (Int, StandardValue) in
                let before = session.client.messenger.drivenWaitCount
                let reply = try await session.methods.invokeMethod("echo", arguments: "alone?")
                return (session.client.messenger.drivenWaitCount - before, reply)
            }
            #expect(reply == "alone?")
            #expect(driven == 0)
            other.cancel()
            await #expect(throws: CancellationError.self) { try await other.value }
        }
    }

    @Test func aRequestFromThePeerIsAnsweredWhileACallDrives() async throws {
        try await Self.withSession { session in
            let (driven, reply) = try await session.onReader { () async throws -> (Int, StandardValue) in
                let before = session.client.messenger.drivenWaitCount
                let reply = try await session.methods.invokeMethod("askBack", arguments: .list([1, "two"]))
                return (session.client.messenger.drivenWaitCount - before, reply)
            }
            // The host's own call was read, handled and answered by the driving call's thread.
            #expect(reply == .list([1, "two"]))
            #expect(driven == 1)
        }
    }

    @Test func cancellingADrivenCallEndsItWhileThePeerIsSilent() async throws {
        try await Self.withSession { session in
            let caller = Task {
                try await session.onReader { () async throws -> (Int, Result<StandardValue, any Error>) in
                    let before = session.client.messenger.drivenWaitCount
                    let outcome = await Result(catching: { try await session.methods.invokeMethod("hang") })
                    return (session.client.messenger.drivenWaitCount - before, outcome)
                }
            }
            let hang = await session.nextSeen {
                guard case .request(_, "test/methods", let payload?) = $0 else { return false }
                return (try? StandardMethodCodec().decodeMethodCall(payload))?.method == "hang"
            }
            guard case .request(let id, _, _)? = hang else { Issue.record("the host never saw the call"); return }
            caller.cancel()
            let (driven, outcome) = try await caller.value
            // The call was driving when it was cancelled (blocked with the peer silent), it ended
            // at once, and the peer was told.
            #expect(driven == 1)
            #expect(throws: CancellationError.self) { try outcome.get() }
            #expect(await session.nextSeen { $0 == .cancel(id: id) } != nil)
        }
    }

    @Test func aDrivenCallEndsWhenThePeerHangsUp() async throws {
        try await Self.withSession { session in
            let outcome = try await session.onReader { () async throws -> (Int, Result<StandardValue, any Error>) in
                let before = session.client.messenger.drivenWaitCount
                let outcome = await Result(catching: { try await session.methods.invokeMethod("hangUp") })
                return (session.client.messenger.drivenWaitCount - before, outcome)
            }
            #expect(outcome.0 == 1)
            #expect(throws: ChannelError.self) { try outcome.1.get() }
            await session.client.waitUntilClosed()
        }
    }
}

private extension Result where Failure == any Error {
    init(catching body: () async throws -> Success) async {
        do { self = .success(try await body()) } catch { self = .failure(error) }
    }
}

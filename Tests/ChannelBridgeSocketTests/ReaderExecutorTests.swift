import ChannelBridgeChannels
import ChannelBridgeCodec
import ChannelBridgeMessenger
@_spi(Benchmarks) import ChannelBridgeSocket
import ChannelBridgeTestSupport
import Dispatch
import Glibc
import Testing

private typealias Support = ChannelsOverSocket

/// `SocketConnection.executor` with the peer in another process: where tasks that prefer it run,
/// and that they still finish when the connection ends.
@Suite(.serialized) struct ReaderExecutorTests {
    static let onReader = SocketConnection.Options(runsTasksOnReaderThread: true)

    /// The thread this process's handlers run on for `connection`: its reader thread. The peer's
    /// `callBack` calls `test/methods` `thread` on this process, and the handler starts there.
    static func recordReaderThread(on connection: SocketConnection, into thread: Locked<UInt>) {
        MethodChannel(name: "test/methods", messenger: connection.messenger).setMethodCallHandler { call in
            guard call.method == "thread" else { throw MethodNotImplemented() }
            thread.set(UInt(pthread_self()))
            return .null
        }
    }

    static func askForCallBack(_ methods: MethodChannel) async throws {
        let request = Support.map([("method", .string("thread")), ("arguments", .null)])
        #expect(try await methods.invokeMethod("callBack", arguments: request) == .null)
    }

    @Test func tasksResumeOnTheReaderThreadAfterEachReply() async throws {
        let reader = Locked<UInt>(0)
        try await Support.withPeerHost(
            options: Self.onReader,
            configure: { Self.recordReaderThread(on: $0, into: reader) }
        ) { session in
            try await Self.askForCallBack(session.methods)
            let readerThread = reader.value
            #expect(readerThread != 0)
            // The task starts wherever it is; a reply that finds it suspended resumes it on the
            // reader (a reply that beats its suspension lets it go on where it is). Once on the
            // reader it stays: its next request leaves only after the step, so the reply always
            // finds it suspended. Nothing here depends on timing: which call first lands on the
            // reader is scheduling, so only "some call does, and every later one too" is checked.
            let threads = try await withTaskExecutorPreference(session.connection.executor) {
                () async throws -> [UInt] in
                var threads: [UInt] = []
                for n in 0..<200 {
                    let reply = try await session.methods.invokeMethod("echo", arguments: .int32(Int32(n)))
                    #expect(reply == .int32(Int32(n)))
                    threads.append(UInt(pthread_self()))
                    if n % 50 == 0 { await Task.yield() }
                }
                return threads
            }
            let firstOnReader = try #require(threads.firstIndex(of: readerThread))
            #expect(threads[firstOnReader...].allSatisfy { $0 == readerThread })
        }
    }

    @Test func withoutTheOptionTasksResumeOnThePool() async throws {
        let reader = Locked<UInt>(0)
        try await Support.withPeerHost(configure: { Self.recordReaderThread(on: $0, into: reader) }) { session in
            try await Self.askForCallBack(session.methods)
            let threads = try await withTaskExecutorPreference(session.connection.executor) {
                () async throws -> [UInt] in
                var threads: [UInt] = []
                for n in 0..<20 {
                    #expect(
                        try await session.methods.invokeMethod("echo", arguments: .int32(Int32(n))) == .int32(Int32(n)))
                    threads.append(UInt(pthread_self()))
                }
                return threads
            }
            #expect(!threads.contains(reader.value))
        }
    }

    @Test func manyCallsInFlightFromTheReaderThread() async throws {
        try await Support.withPeerHost(options: Self.onReader) { session in
            let answered = try await withTaskExecutorPreference(session.connection.executor) {
                try await withThrowingTaskGroup(of: Int.self) { group in
                    for task in 0..<256 {
                        group.addTask {
                            for call in 0..<20 {
                                let value = StandardValue.list([.int32(Int32(task)), .int32(Int32(call))])
                                let reply = try await session.methods.invokeMethod("echo", arguments: value)
                                guard reply == value else { throw MethodError(code: "WRONG", message: "\(reply)") }
                            }
                            return 20
                        }
                    }
                    return try await group.reduce(0, +)
                }
            }
            #expect(answered == 256 * 20)
        }
    }

    /// The reader runs its own jobs without a lock and other threads' jobs from a locked queue;
    /// it alternates the two round by round. A task that keeps the reader busy, re-enqueueing
    /// itself from the reader thread with `Task.yield()`, must not hold back a task another thread
    /// started on the same executor: the yielding task waits for that task to run. (When the
    /// reader ran its own jobs until none was left before looking at the others, the yields ran
    /// out first.)
    @Test func aTaskYieldingOnTheReaderDoesNotHoldBackTasksFromOtherThreads() async throws {
        let reader = Locked<UInt>(0)
        try await Support.withPeerHost(
            options: Self.onReader,
            configure: { Self.recordReaderThread(on: $0, into: reader) }
        ) { session in
            try await Self.askForCallBack(session.methods)
            let executor = session.connection.executor
            let other = Locked<Bool>(false)
            let maxYields = 200_000
            let yields = try await withTaskExecutorPreference(executor) { () async throws -> Int in
                // Onto the reader thread: a call's reply that finds the task suspended resumes it there.
                var calls = 0
                while UInt(pthread_self()) != reader.value {
                    calls += 1
                    try #require(calls <= 1_000, "no call resumed on the reader thread")
                    _ = try await session.methods.invokeMethod("echo", arguments: .null)
                }
                // Started from a thread that is not the reader, so it goes through the locked queue.
                DispatchQueue.global().async {
                    Task(executorPreference: executor) { other.set(true) }
                }
                var yields = 0
                while !other.isSet, yields < maxYields {
                    await Task.yield()
                    yields += 1
                }
                return yields
            }
            #expect(other.isSet && yields < maxYields, "the other task had not run after \(yields) yields")
        }
    }

    @Test func pendingCallsEndAndTheirTasksFinishWhenThePeerDies() async throws {
        try await Support.withPeerHost(options: Self.onReader) { session in
            let executor = session.connection.executor
            let calls = (0..<8).map { _ in
                Task {
                    try await withTaskExecutorPreference(executor) {
                        () async throws -> (Result<StandardValue, any Error>, Result<StandardValue, any Error>) in
                        let outcome = await Result(catching: { try await session.methods.invokeMethod("hang") })
                        // The reader thread is gone; what follows must still run.
                        await Task.yield()
                        let late = await Result(catching: { try await session.methods.invokeMethod("echo") })
                        return (outcome, late)
                    }
                }
            }
            // FIFO per channel: once this is answered every hang has reached the peer.
            #expect(try await session.methods.invokeMethod("echo", arguments: .int32(1)) == .int32(1))
            session.peer.kill()
            for call in calls {
                let (outcome, late) = try await call.value
                let error = try #require(throws: ChannelError.self) { try outcome.get() }
                #expect(error.code == .connectionClosed && error.channel == "peer/methods" && error.method == "hang")
                let lateError = try #require(throws: ChannelError.self) { try late.get() }
                #expect(lateError.code == .connectionClosed && lateError.method == "echo")
            }
            await session.connection.waitUntilClosed()
            // A task that prefers the executor of an ended connection runs on the pool.
            let ran = await withTaskExecutorPreference(executor) {
                await Task.yield()
                return true
            }
            #expect(ran)
        }
    }
}

extension Result where Failure == any Error {
    fileprivate init(catching body: () async throws -> Success) async {
        do { self = .success(try await body()) } catch { self = .failure(error) }
    }
}

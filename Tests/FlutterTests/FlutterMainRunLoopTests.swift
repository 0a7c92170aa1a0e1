import ChannelBridgeChannels
import ChannelBridgeCodec
import ChannelBridgeMessenger
import ChannelBridgeSocket
import ChannelBridgeTestSupport
import Foundation
import Testing

/// Threads and run loops as on iOS, in a real host process (`flutter-threading-peer`) whose main
/// thread runs the main run loop (`FlutterRunLoop.runMain`), driven by real clients over its
/// socket: handlers without a task queue on the main thread, background task queues off it,
/// timers scheduled from handlers firing, `DispatchQueue.main` and the main actor on the main
/// thread, messages in order per session.
@Suite struct FlutterMainRunLoopTests {
    /// The peer, its socket's directory, and the pipe whose end ends it.
    struct Peer {
        let directory: TestDirectory
        let host: HostProcess
        let stdin: CloseOnExecPipe

        static func start(_ options: [String] = []) async throws -> Peer {
            let directory = try TestDirectory()
            let stdin = try CloseOnExecPipe()
            let host = try HostProcess(
                [directory.socket] + options, product: "flutter-threading-peer",
                input: stdin.fileHandleForReading)
            try stdin.fileHandleForReading.close()
            #expect(try await host.readyLine() == "ready \(directory.socket)")
            return Peer(directory: directory, host: host, stdin: stdin)
        }

        func connect() async throws -> SocketConnection {
            try await SocketConnection.connect(to: directory.socket, options: .forTests)
        }

        /// Ends the peer (its stdin reaches end of file) and gives how it exited.
        func stop() async -> HostProcess.Exit {
            try? stdin.fileHandleForWriting.close()
            let exit = await host.waitForExit()
            directory.remove()
            return exit
        }
    }

    /// Runs `body` against a peer started with `options`, then stops the peer whatever happened,
    /// and gives its exit.
    static func withPeer(
        _ options: [String] = [], _ body: @escaping @Sendable (Peer) async throws -> Void,
        function: String = #function
    ) async throws -> HostProcess.Exit {
        let peer = try await Peer.start(options)
        var failure: (any Error)?
        do {
            try await withHangGuard(function: function) { try await body(peer) }
        } catch {
            failure = error
        }
        let exit = await peer.stop()
        if let failure { throw failure }
        return exit
    }

    @Test func handlersRunOnTheMainThreadUnlessGivenABackgroundTaskQueue() async throws {
        let exit = try await Self.withPeer { peer in
            let connection = try await peer.connect()
            defer { connection.close() }
            let probe = MethodChannel(name: "threading/probe", messenger: connection.messenger)
            let background = MethodChannel(name: "threading/probe-background", messenger: connection.messenger)
            #expect(try await probe.invokeMethod("isMainThread") == true)
            #expect(try await background.invokeMethod("isMainThread") == false)
            // What a handler starts on the main queue, the main actor or the main run loop runs,
            // on the main thread, from either kind of handler (a background queue has no run loop
            // of its own, so only the main thread's timers are asked for).
            #expect(try await probe.invokeMethod("mainQueue") == true)
            #expect(try await probe.invokeMethod("mainActor") == true)
            #expect(try await probe.invokeMethod("timer") == true)
            #expect(try await background.invokeMethod("mainQueue") == true)
            #expect(try await background.invokeMethod("mainActor") == true)
            // A second session's engine shares the one main thread.
            let second = try await peer.connect()
            defer { second.close() }
            #expect(
                try await MethodChannel(name: "threading/probe", messenger: second.messenger).invokeMethod(
                    "isMainThread") == true)
        }
        #expect(exit.status == 0 && !exit.bySignal)
        #expect(exit.stderr == "")
    }

    @Test func aTimerScheduledByAStreamHandlerDeliversEveryEvent() async throws {
        let exit = try await Self.withPeer { peer in
            let connection = try await peer.connect()
            defer { connection.close() }
            let ticks = EventChannel(name: "threading/ticks", messenger: connection.messenger)
            var events: [MethodEnvelope] = []
            for try await event in ticks.receiveBroadcastStream(arguments: .int32(20)) { events.append(event) }
            #expect(events == (0..<20).map { MethodEnvelope.success(.int64(Int64($0))) })
            // Listened again, the stream starts over: the handler's timer is a new one.
            var again: [MethodEnvelope] = []
            for try await event in ticks.receiveBroadcastStream(arguments: .int32(3)) { again.append(event) }
            #expect(again == [.success(.int64(0)), .success(.int64(1)), .success(.int64(2))])
        }
        #expect(exit.status == 0 && exit.stderr == "")
    }

    @Test func messagesKeepTheirOrderPerSessionOnTheSharedMainThread() async throws {
        let exit = try await Self.withPeer { peer in
            let sessions = [try await peer.connect(), try await peer.connect()]
            defer { for session in sessions { session.close() } }
            var sent: [[String]] = [[], []]
            var replies: [Task<[UInt8]?, any Error>] = []
            // The two sessions' messages interleave; each session's go round its three channels,
            // one-way messages and requests mixed.
            for index in 0..<300 {
                let session = index % 2, text = "\(session):\(index)"
                let channel = "threading/order/\(index / 2 % 3)"
                sent[session].append(text)
                if index % 5 == 4 {
                    try sessions[session].messenger.post(onChannel: channel, message: Array(text.utf8))
                } else {
                    // Started here, so each session's requests are written in this order.
                    let messenger = sessions[session].messenger
                    replies.append(
                        Task.immediate { try await messenger.send(onChannel: channel, message: Array(text.utf8)) })
                }
            }
            for reply in replies { _ = try await reply.value }
            for session in 0..<2 {
                let order = try await MethodChannel(name: "threading/probe", messenger: sessions[session].messenger)
                    .invokeMethod("order")
                #expect(order == .list(sent[session].map { .string($0) }))
            }
        }
        #expect(exit.status == 0 && exit.stderr == "")
    }

    @Test func anEngineWithAQueueOfItsOwnRunsHandlersOffTheMainThread() async throws {
        let exit = try await Self.withPeer(["--engine-queue"]) { peer in
            let connection = try await peer.connect()
            defer { connection.close() }
            let probe = MethodChannel(name: "threading/probe", messenger: connection.messenger)
            #expect(try await probe.invokeMethod("isMainThread") == false)
            #expect(try await probe.invokeMethod("mainQueue") == true)
        }
        #expect(exit.status == 0 && exit.stderr == "")
    }

    @Test func withoutTheMainRunLoopHandlersRunOffTheMainThreadAndTheLogSaysWhyOnce() async throws {
        let exit = try await Self.withPeer(["--no-run-loop"]) { peer in
            let connection = try await peer.connect()
            defer { connection.close() }
            let probe = MethodChannel(name: "threading/probe", messenger: connection.messenger)
            #expect(try await probe.invokeMethod("isMainThread") == false)
            #expect(try await probe.invokeMethod("mainQueue") == false)
        }
        #expect(exit.status == 0)
        #expect(
            exit.stderr
                == "Flutter warning: FlutterEngine: a handler runs on the main queue but not on the main thread: "
                + "the process does not run its main run loop, so timers scheduled from handlers do not fire and "
                + "Thread.isMainThread is false; run the host's work in FlutterRunLoop.runMain (Protocol/flutter-embedder.md, "
                + "section 5)\n")
    }
}

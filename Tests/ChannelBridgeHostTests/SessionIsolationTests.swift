import ChannelBridgeChannels
import ChannelBridgeClient
import ChannelBridgeCodec
import ChannelBridgeHost
import ChannelBridgeMessenger
import ChannelBridgePlatform
import ChannelBridgeSocket
import ChannelBridgeTestSupport
import Foundation
import Glibc
import Testing

/// `--isolation session` (Protocol/extension-host.md §1.8), with real worker processes: a host
/// whose plugin traps on request (`isolation-test-host`, channel `test/crash`).
@Suite struct SessionIsolationTests {
    static let crash = "test/crash"

    static func start(
        _ directory: TestDirectory, _ arguments: [String] = [], environment: [String: String]? = nil
    ) async throws -> HostProcess {
        let host = try HostProcess(
            ["--socket", directory.socket, "--data-dir", directory.data, "--isolation", "session"] + arguments,
            environment: environment, product: "isolation-test-host")
        #expect(try await host.readyLine() == "ready \(directory.socket)")
        return host
    }

    static func pid(_ connection: SocketConnection) async throws -> Int {
        let value = try await HostTesting.methods(connection, crash).invokeMethod("pid")
        return try #require(value.intValue)
    }

    /// The trapping session's client gets GOODBYE `sessionCrashed` naming the signal and the
    /// handler; a second client, in another worker, goes on as if nothing happened; the host logs
    /// the crash and still ends on `exit` with the usual record.
    @Test func aTrappingSessionEndsAloneWithSessionCrashed() async throws {
        let directory = try TestDirectory()
        defer { directory.remove() }
        try await withHangGuard(seconds: 60) {
            let host = try await Self.start(directory)
            let doomed = try await HostTesting.connect(directory)
            let healthy = try await HostTesting.connect(directory)
            let doomedPID = try await Self.pid(doomed)
            let healthyPID = try await Self.pid(healthy)
            #expect(doomedPID != healthyPID)
            #expect(doomedPID != Int(host.pid) && healthyPID != Int(host.pid))

            await #expect(throws: ChannelError.self) {
                _ = try await HostTesting.methods(doomed, Self.crash).invokeMethod("abort", arguments: "two")
            }
            await doomed.waitUntilClosed()
            let reason =
                "the session's worker died by SIGABRT in the handler of method 'abort' on channel 'test/crash'"
            #expect(
                doomed.messenger.closeError
                    == MessengerError(.connectionClosed, "the process serving this session crashed: \(reason)"))

            // The other session: same worker, answering, no error.
            #expect(try await Self.pid(healthy) == healthyPID)
            #expect(
                try await HostTesting.methods(healthy, Self.crash).invokeMethod("echo", arguments: ["x": 1])
                    == ["x": 1])
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
                logged.contains(
                    "extension-host: [session 1] the session's worker (pid \(doomedPID)) died by SIGABRT "
                        + "in the handler of method 'abort' on channel 'test/crash'"), "\(exit.stderr)")
            // The worker's own last line, as a host without isolation writes it.
            #expect(
                logged.contains(
                    "isolation-test-host: fatal signal SIGABRT in the handler of method 'abort' on channel 'test/crash'"
                ),
                "\(exit.stderr)")
        }
    }

    /// `exit` from one session ends the one request: the record is that call's, the other session
    /// is told GOODBYE `shuttingDown`, and a later `exit` from it is refused.
    @Test func exitFromAnySessionCompletesTheRequestOnce() async throws {
        let directory = try TestDirectory()
        defer { directory.remove() }
        try await withHangGuard(seconds: 60) {
            let host = try await Self.start(directory, ["--text", "shared"])
            let first = try await HostTesting.connect(directory)
            let second = try await HostTesting.connect(directory)
            // The items the host prepared reach every worker.
            let items = try await HostTesting.methods(second).invokeMethod("getInputItems")
            #expect(items == [["attachments": [["typeIdentifier": "public.plain-text", "text": "shared"]]]])
            _ = try await HostTesting.methods(first).invokeMethod("openURL", arguments: ["url": "https://a.example"])
            _ = try await HostTesting.methods(first).invokeMethod("exit", arguments: [1])
            do {
                _ = try await HostTesting.methods(second).invokeMethod("exit", arguments: [2])
                Issue.record("a second exit was accepted")
            } catch let error as MethodError {
                #expect(error.code == "REQUEST_ALREADY_COMPLETED")
                #expect(error.message == "exit: the extension request has already ended (completed)")
            } catch let error as ChannelError {
                // The host's shutdown reached the second session first: its GOODBYE arrived
                // before the call left (connectionClosed), or the call arrived after it (REPLY
                // status 2, wire protocol §4 rule 6).
                #expect(
                    error.code == .connectionClosed
                        || (error.code == .handlerFailed && error.message.contains("the connection is closing")),
                    "\(error)")
            }
            await second.waitUntilClosed()
            #expect(
                second.messenger.closeError
                    == MessengerError(
                        .connectionClosed, "the peer said goodbye (shuttingDown): host is shutting down (completed)"))
            let exit = await host.waitForExit()
            #expect(!exit.bySignal && exit.status == 0)
            #expect(
                exit.stdoutLines.last
                    == #"{"outcome":"completed","returnedItems":[{"int32":1}],"error":null,"openedURLs":[{"url":"https://a.example","opened":false}]}"#
            )
            #expect(exit.stderr == "")
        }
    }

    /// A worker that dies while a frame to its client is partly written sends no GOODBYE: the
    /// client reads a prefix of that frame, then end of file, never a GOODBYE inside a frame. The
    /// socket has room for a GOODBYE when the trap comes, so the count of the frame's bytes sent,
    /// not a full socket, is what keeps it out: the worker has filled its side of the socket and
    /// stopped, and the client has then read 128 KiB of it, which does not wake the worker (a Unix
    /// socket's sender is woken once at most a quarter of its buffer is left unread).
    @Test func aCrashMidFrameEndsTheConnectionWithoutAGoodbye() async throws {
        let directory = try TestDirectory()
        defer { directory.remove() }
        try await withHangGuard(seconds: 60) {
            // Answers over the high-water mark would hold the trapping call back: raise it.
            let host = try await Self.start(directory, ["--echo", "--outbound-high-water", "67108864"])
            let client = try RawClient(path: directory.socket)
            defer { client.closeSocket() }
            var payload = [UInt8](repeating: 0, count: 8 << 20)
            for index in stride(from: 0, to: payload.count, by: 4096) {
                payload[index] = UInt8(truncatingIfNeeded: index >> 12)
            }
            // The echo's reply is far larger than the socket holds while this client does not read.
            // The request is built in place around the payload.
            let channel = Array("channelbridge/echo".utf8)
            var request = [UInt8]()
            request.reserveCapacity(payload.count + 64)
            let length = UInt32(1 + 4 + 2 + channel.count + 1 + payload.count)
            request.append(contentsOf: (0..<4).map { UInt8(truncatingIfNeeded: length >> (8 * UInt32($0))) })
            request.append(contentsOf: [0x02, 1, 0, 0, 0, UInt8(channel.count), 0])
            request.append(contentsOf: channel)
            request.append(0)
            request.append(contentsOf: payload)
            let trap = try RawClient.methodCall(id: 2, channel: Self.crash, method: "abort", arguments: "two")
            // Blocking socket calls (a write this large waits until the worker has read it): on a
            // thread of their own. The worker's side is full once 192 KiB wait unread and no more
            // come for 200 ms; 128 KiB read then leaves room for a GOODBYE, and the trap comes.
            let head = await onThread { [request] in
                Result {
                    try client.write(RawClient.hello())
                    try client.write(request)
                    let head = try client.readOnceSenderStops(
                        queued: 192 << 10, quietMilliseconds: 200, count: 128 << 10)
                    try client.write(trap)
                    return head
                }
            }
            var bytes = try head.get()
            bytes.append(contentsOf: await client.readBytesUntilClosed())
            let frames = RawClient.parse(bytes)
            guard case .hello = frames.first else {
                Issue.record("no HELLO first: \(frames.prefix(2))")
                return
            }
            let helloLength = 4 + (Int(bytes[0]) | Int(bytes[1]) << 8 | Int(bytes[2]) << 16 | Int(bytes[3]) << 24)
            var reply: [UInt8] = [0, 0, 0, 0, 0x03, 1, 0, 0, 0, 0]
            reply.append(contentsOf: payload)
            let replyLength = UInt32(reply.count - 4)
            for index in 0..<4 { reply[index] = UInt8(truncatingIfNeeded: replyLength >> (8 * UInt32(index))) }
            let rest = Array(bytes[helloLength...])
            #expect(rest.count > 0 && rest.count < reply.count, "\(rest.count) of \(reply.count) bytes")
            // Compared as a whole; the message names the first byte that differs, not megabytes.
            let differs = rest.indices.first { $0 >= reply.count || rest[$0] != reply[$0] }
            #expect(
                differs == nil,
                "the bytes after HELLO differ from the reply's at \(differs ?? 0) of \(rest.count): \(rest[(differs ?? 0)...].prefix(64))"
            )
            host.send(signal: SIGTERM)
            let exit = await host.waitForExit()
            #expect(exit.bySignal == false && exit.status == 143)
            #expect(exit.stderr.contains("died by SIGABRT in the handler of method 'abort' on channel 'test/crash'"))
        }
    }

    /// Preferences written in one worker are read, and change-streamed, in another.
    @Test func preferencesAndChangeStreamsCrossWorkers() async throws {
        let directory = try TestDirectory()
        defer { directory.remove() }
        try await withHangGuard(seconds: 60) {
            let host = try await Self.start(directory)
            let writer = try await HostTesting.connect(directory)
            let reader = try await HostTesting.connect(directory)
            #expect(try await Self.pid(writer) != (try await Self.pid(reader)))
            let writes = SharedPreferencesClient(messenger: writer.messenger)
            let reads = SharedPreferencesClient(messenger: reader.messenger)
            try await writes.setString("k", "one")
            #expect(try await reads.getString("k") == "one")

            let changes = EventChannel(name: "shared_preference_app_group/changes", messenger: reader.messenger)
            let stream = changes.receiveBroadcastStream(arguments: HostTesting.map(["keys": ["k"]]))
            let events = Collector<EventChannel.Event>(name: "change events")
            let consuming = Task {
                for try await event in stream { events.append(event) }
            }
            defer { consuming.cancel() }
            // The reader's worker subscribes while answering `listen`, which the writer's write may
            // overtake; writing until one is seen proves the stream is active.
            let two = EventChannel.Event.success(HostTesting.map(["key": "k", "value": "two"]))
            while events.count == 0 {
                try await writes.setString("k", "two")
                _ = try? await events.wait(for: "a first event", hangGuard: .milliseconds(500)) { !$0.isEmpty }
            }
            #expect(events.all.allSatisfy { $0 == two })
            try await writes.setString("k", "three")
            let three = EventChannel.Event.success(HostTesting.map(["key": "k", "value": "three"]))
            #expect(try await events.wait(for: "the second write") { $0.contains(three) }.last == three)

            _ = try await HostTesting.methods(writer).invokeMethod("exit")
            let exit = await host.waitForExit()
            #expect(exit.status == 0 && !exit.bySignal)
        }
    }

    /// 100 connections opened and closed: every worker is reaped (no zombie), and the host keeps
    /// only its idle workers.
    @Test func connectionsComeAndGoWithoutZombies() async throws {
        let directory = try TestDirectory()
        defer { directory.remove() }
        try await withHangGuard(seconds: 120) {
            let host = try await Self.start(directory)
            var pids = Set<Int>()
            for _ in 0..<100 {
                let connection = try await HostTesting.connect(directory)
                pids.insert(try await Self.pid(connection))
                connection.close()
                await connection.waitUntilClosed()
            }
            #expect(pids.count == 100)
            // Reaping follows each session's end; the kernel's process table says when it is done.
            #expect(await settles { Self.children(of: host.pid).count == 2 }, "\(Self.children(of: host.pid))")
            #expect(Self.children(of: host.pid).allSatisfy { $0.state != "Z" })

            let last = try await HostTesting.connect(directory)
            _ = try await HostTesting.methods(last).invokeMethod("exit")
            let exit = await host.waitForExit()
            #expect(exit.status == 0 && !exit.bySignal)
            #expect(exit.stderr == "")
        }
    }

    /// A worker whose handler never returns does not outlive its session: once the client has
    /// gone, the worker exits or is killed within the grace of §1.8 (2 s), and is reaped.
    @Test func aHungWorkerEndsWithItsConnection() async throws {
        let directory = try TestDirectory()
        defer { directory.remove() }
        try await withHangGuard(seconds: 60) {
            let host = try await Self.start(directory)
            let hung = try await HostTesting.connect(directory)
            let hungPID = Int32(try await Self.pid(hung))
            let calling = Task { try? await HostTesting.methods(hung, Self.crash).invokeMethod("hang") }
            // The handler is running (the main thread is blocked) once `pid` no longer answers;
            // until `hang` has reached the worker, `pid` still does.
            var blocked = false
            for _ in 0..<20 where !blocked {
                do {
                    _ = try await HostTesting.methods(hung, Self.crash).invokeMethod("pid", timeout: .milliseconds(300))
                } catch let error as ChannelError where error.code == .timedOut {
                    blocked = true
                }
            }
            #expect(blocked, "the hang handler never started")
            hung.close()
            await hung.waitUntilClosed()
            _ = await calling.value
            #expect(
                await settles(within: 10) { !Self.children(of: host.pid).contains { $0.pid == hungPID } },
                "worker \(hungPID) still runs")
            let other = try await HostTesting.connect(directory)
            _ = try await HostTesting.methods(other).invokeMethod("exit")
            let exit = await host.waitForExit()
            #expect(exit.status == 0 && !exit.bySignal)
            #expect(!exit.stderr.contains("died by"), "\(exit.stderr)")
        }
    }

    /// The children of `pid` and their states (`R`, `S`, `Z`, ...), from /proc.
    static func children(of pid: Int32) -> [(pid: Int32, state: String)] {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.compactMap { entry -> (Int32, String)? in
            guard let child = Int32(entry),
                let stat = try? String(contentsOfFile: "/proc/\(entry)/stat", encoding: .utf8),
                let close = stat.lastIndex(of: ")")
            else { return nil }
            let fields = stat[stat.index(close, offsetBy: 2)...].split(separator: " ")
            guard fields.count > 1, Int32(fields[1]) == pid else { return nil }
            return (child, String(fields[0]))
        }
    }

    /// A host embedded in another process serves its sessions in process: `--isolation session`
    /// needs a host executable.
    @Test func isolationNeedsAHostExecutable() async throws {
        let directory = try TestDirectory()
        defer { directory.remove() }
        let lines = LockedValue<[String]>([])
        let status = await ExtensionHostCommand.main(
            arguments: ["--socket", directory.socket, "--isolation", "session"],
            interruptions: AsyncStream { $0.finish() },
            output: HostOutput(
                standardOutput: { line in lines.withLock { $0.append("out: " + line) } },
                standardError: { line in lines.withLock { $0.append("err: " + line) } }))
        #expect(status == 64)
        #expect(
            lines.withLock { $0 } == [
                "err: extension-host: --isolation session needs a host executable "
                    + "(ExtensionHostCommand.main), which can start itself again; this host serves its sessions "
                    + "in its own process"
            ])
    }
}

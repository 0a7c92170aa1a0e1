import ChannelBridgeChannels
import ChannelBridgeCodec
import ChannelBridgeHost
import ChannelBridgeMessenger
import ChannelBridgePlugins
import ChannelBridgeSocket
import ChannelBridgeTestSupport
import Foundation
import Testing

/// `ExtensionHost.run()` as structured concurrency: cancelling the task that runs it shuts the
/// host down in order, and `ExtensionHostCommand` turns a signal into that cancellation.
@Suite(.serialized) struct StructuredRunTests {
    static let quiet = HostOutput(standardOutput: { _ in }, standardError: { _ in })
    static let slowChannel = "test/slow"

    /// A host whose sessions answer `test/slow` only once `gate` has a value; `started` gets one
    /// value per call that reached the handler.
    static func slowHost(
        _ directory: TestDirectory, started: Collector<String>, gate: Collector<Bool>,
        output: HostOutput = quiet
    ) async throws -> ExtensionHost {
        let plugins = HostPlugins { registry in
            MethodChannel(name: slowChannel, messenger: registry.messenger).setMethodCallHandler { call in
                started.append(call.method)
                try await gate.first(1, hangGuard: .seconds(30))
                return .string("late \(call.method)")
            }
        }
        return try await ExtensionHost.start(
            options: HostOptions(socketPath: directory.socket, dataDirectory: directory.data),
            output: output, plugins: plugins)
    }

    @Test func cancellingTheTaskThatRunsTheHostShutsItDownInOrder() async throws {
        let directory = try TestDirectory()
        defer { directory.remove() }
        let (started, gate, lines) = (Collector<String>(), Collector<Bool>(), Collector<String>())
        let output = HostOutput(standardOutput: { lines.append($0) }, standardError: { _ in })
        let host = try await Self.slowHost(directory, started: started, gate: gate, output: output)
        let running = Task { await host.run() }
        try await withHangGuard(seconds: 30) { () async throws in
            let connection = try await SocketConnection.connect(
                to: directory.socket, options: HostTesting.clientOptions)
            let closed = ClosedCollector(connection)
            let slow = MethodChannel(name: Self.slowChannel, messenger: connection.messenger)
            let pending = Task { try await slow.invokeMethod("pending") }
            try await started.first(1)

            running.cancel()
            // Cancelling ended the request as a supervisor's stop does (SIGTERM by default).
            let ending = await host.request.waitForEnd()
            #expect(ending.outcome == .interrupted(.sigterm))
            // The shutdown waits for the reply it owes; once given, the session ends.
            gate.append(true)
            #expect(try await pending.value == "late pending")
            let error = await closed.error()
            #expect(error.code == .connectionClosed)
            #expect(error.message.contains("shuttingDown"))
            await #expect(throws: (any Error).self) { try await slow.invokeMethod("after the end") }

            // run() returned the record, printed last, and the socket is gone.
            let record = await running.value
            #expect(record.outcome == .interrupted(.sigterm))
            #expect(
                lines.all == [
                    "ready \(directory.socket)",
                    #"{"outcome":"interrupted","returnedItems":null,"error":{"code":"SIGTERM","message":"the host was interrupted by SIGTERM","details":null},"openedURLs":[]}"#,
                ])
            #expect(!FileManager.default.fileExists(atPath: directory.socket))
            await #expect(throws: SocketError.self) {
                _ = try await SocketConnection.connect(to: directory.socket, options: HostTesting.clientOptions)
            }
        }
    }

    @Test func aCallTheHostHadNotReadEndsWithTheConnection() async throws {
        let directory = try TestDirectory()
        defer { directory.remove() }
        let (started, gate) = (Collector<String>(), Collector<Bool>())
        var options = HostOptions(socketPath: directory.socket, dataDirectory: directory.data)
        options.maxHandlersInFlight = 1
        let plugins = HostPlugins { registry in
            MethodChannel(name: Self.slowChannel, messenger: registry.messenger).setMethodCallHandler { call in
                started.append(call.method)
                try await gate.first(1, hangGuard: .seconds(30))
                return .string("late \(call.method)")
            }
        }
        let host = try await ExtensionHost.start(options: options, output: Self.quiet, plugins: plugins)
        let running = Task { await host.run() }
        try await withHangGuard(seconds: 30) { () async throws in
            let connection = try await SocketConnection.connect(
                to: directory.socket, options: HostTesting.clientOptions)
            let slow = MethodChannel(name: Self.slowChannel, messenger: connection.messenger)
            let first = Task { try await slow.invokeMethod("first") }
            try await started.first(1)
            // The one handler slot is taken: the host holds this request back, unstarted. Started
            // immediately, the call has written its request before the cancellation below.
            let second = Task.immediate { try await slow.invokeMethod("second") }
            // An idle session opened after this one: the host closes sessions in the order they
            // came, so once this one has ended, the first has its GOODBYE and starts nothing more.
            let idle = try await SocketConnection.connect(to: directory.socket, options: HostTesting.clientOptions)
            _ = try await idle.messenger.waitForPeerHello()
            let idleClosed = ClosedCollector(idle)
            running.cancel()
            #expect(await idleClosed.error().code == .connectionClosed)
            gate.append(true)
            #expect(try await first.value == "late first")
            // The request the host never started ends with the session, never run: either it was
            // still unread when the connection closed (connectionClosed, naming the GOODBYE) or the
            // host read it after its GOODBYE (status 2 "the connection is closing", wire protocol);
            // which one depends on when the freed handler slot let the host read again.
            do {
                let reply = try await second.value
                Issue.record("the held-back call was answered: \(reply)")
            } catch let error as ChannelError {
                switch error.code {
                case .connectionClosed:
                    #expect(error.message.contains("host is shutting down (interrupted (SIGTERM))"), "\(error)")
                case .handlerFailed:
                    #expect(error.message == "the connection is closing", "\(error)")
                default:
                    Issue.record("the held-back call ended with \(error)")
                }
            }
            #expect(await running.value.outcome == .interrupted(.sigterm))
            #expect(started.all == ["first"])
        }
    }

    @Test func theCancellationSignalNamesTheInterruption() async throws {
        let directory = try TestDirectory()
        defer { directory.remove() }
        let host = try await ExtensionHost.start(
            options: HostOptions(socketPath: directory.socket, dataDirectory: directory.data),
            output: Self.quiet)
        let running = Task { await host.run(cancellationSignal: { .sigint }) }
        running.cancel()
        try await withHangGuard(seconds: 30) { () async throws in
            let record = await running.value
            #expect(record.outcome == .interrupted(.sigint))
            #expect(record.outcome.exitStatus == 130)
            // A further call answers the same record.
            #expect(await host.run() == record)
            #expect(!FileManager.default.fileExists(atPath: directory.socket))
        }
    }

    @Test func aClientThatConnectsBeforeRunIsServedOnceItRuns() async throws {
        let directory = try TestDirectory()
        defer { directory.remove() }
        let host = try await ExtensionHost.start(
            options: HostOptions(
                socketPath: directory.socket, dataDirectory: directory.data,
                echo: true),
            output: Self.quiet)
        try await withHangGuard(seconds: 30) { () async throws in
            // The socket is bound: connecting succeeds and waits in the backlog, unaccepted.
            let connection = try await SocketConnection.connect(
                to: directory.socket, options: HostTesting.clientOptions)
            #expect(host.sessionCount == 0)
            let running = Task { await host.run() }
            let reply = try await connection.messenger.send(onChannel: HostOptions.echoChannel, message: [7, 8])
            #expect(reply == [7, 8])
            #expect(host.sessionCount == 1)
            running.cancel()
            #expect(await running.value.outcome == .interrupted(.sigterm))
        }
    }

    @Test(arguments: [HostSignal.sigint, .sigterm])
    func theCommandTurnsTheFirstSignalIntoCancellation(signal: HostSignal) async throws {
        let directory = try TestDirectory()
        defer { directory.remove() }
        let lines = Collector<String>()
        let output = HostOutput(standardOutput: { lines.append($0) }, standardError: { _ in })
        let (interruptions, interrupt) = AsyncStream.makeStream(of: HostSignal.self)
        try await withHangGuard(seconds: 30) { () async throws in
            async let status = ExtensionHostCommand.main(
                arguments: ["--socket", directory.socket, "--data-dir", directory.data], interruptions: interruptions,
                output: output)
            try await lines.first(1)
            let connection = try await SocketConnection.connect(
                to: directory.socket, options: HostTesting.clientOptions)
            let closed = ClosedCollector(connection)
            _ = try await connection.messenger.waitForPeerHello()
            interrupt.yield(signal)
            #expect(await status == signal.exitStatus)
            let message = await closed.error().message
            #expect(message.contains("interrupted (\(signal.name))"), "\(message)")
            #expect(lines.all.last?.contains(#""code":"\#(signal.name)""#) == true)
            #expect(!FileManager.default.fileExists(atPath: directory.socket))
        }
    }

    @Test func theCommandReturnsWhenTheRequestEndsWithoutASignal() async throws {
        let directory = try TestDirectory()
        defer { directory.remove() }
        // The stream of signals never yields and is never finished: the host's end alone ends main.
        let (interruptions, interrupt) = AsyncStream.makeStream(of: HostSignal.self)
        defer { interrupt.finish() }
        try await withHangGuard(seconds: 30) { () async throws in
            let lines = Collector<String>()
            let output = HostOutput(standardOutput: { lines.append($0) }, standardError: { _ in })
            async let status = ExtensionHostCommand.main(
                arguments: ["--socket", directory.socket, "--data-dir", directory.data], interruptions: interruptions,
                output: output)
            try await lines.first(1)
            let connection = try await SocketConnection.connect(
                to: directory.socket, options: HostTesting.clientOptions)
            _ = try await MethodChannel(name: "channelbridge/extension", messenger: connection.messenger).invokeMethod(
                "exit")
            #expect(await status == 0)
        }
    }
}

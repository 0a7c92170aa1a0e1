import ChannelBridgeTestSupport
import ChannelBridgeChannels
import ChannelBridgeCodec
import ChannelBridgeMessenger
import ChannelBridgeSocket
import Foundation
import Glibc
import Testing

/// Each way a request ends: its exit status, its completion record, and the orderly shutdown
/// (the socket file removed, every session told GOODBYE).
@Suite struct OutcomeTests {
    @Test func cancelExitsTwoWithTheClientsError() async throws {
        let directory = try TestDirectory()
        defer { directory.remove() }
        try await withHangGuard {
            let host = try await HostTesting.start(directory)
            let connection = try await HostTesting.connect(directory)
            let arguments = HostTesting.map([
                "code": "USER_CANCELLED", "message": "The user tapped Cancel",
                "details": HostTesting.map(["step": .int32(2)]),
            ])
            #expect(try await HostTesting.methods(connection).invokeMethod("cancel", arguments: arguments) == .null)
            let exit = await host.waitForExit()
            #expect(exit.status == 2 && !exit.bySignal)
            #expect(
                exit.stdoutLines == [
                    "ready \(directory.socket)",
                    #"{"outcome":"cancelled","returnedItems":null,"error":{"code":"USER_CANCELLED","message":"The user tapped Cancel","details":{"map":[["step",{"int32":2}]]}},"openedURLs":[]}"#,
                ])
        }
    }

    @Test func cancelWithoutACodeIsRefusedAndTheRequestGoesOn() async throws {
        let directory = try TestDirectory()
        defer { directory.remove() }
        try await withHangGuard {
            let host = try await HostTesting.start(directory)
            let connection = try await HostTesting.connect(directory)
            let ext = HostTesting.methods(connection)
            let error = try await #require(throws: MethodError.self) {
                try await ext.invokeMethod("cancel", arguments: HostTesting.map(["message": "no code"]))
            }
            #expect(error.code == "INVALID_ARGUMENTS")
            #expect(error.message == "cancel: the argument 'code' is missing")
            let notAList = try await #require(throws: MethodError.self) {
                try await ext.invokeMethod("exit", arguments: .string("done"))
            }
            #expect(notAList.code == "INVALID_ARGUMENTS")
            // Still serving: the request did not end.
            #expect(try await ext.invokeMethod("getInputItems") == .list([HostTesting.map(["attachments": .list([])])]))
            #expect(try await ext.invokeMethod("exit") == .null)
            #expect(await host.waitForExit().status == 0)
        }
    }

    @Test func theDeadlineExpiresTheRequestWithStatusThree() async throws {
        let directory = try TestDirectory()
        defer { directory.remove() }
        try await withHangGuard(seconds: 60) {  // the host runs its 15 s deadline out
            // Long enough for the connect below to happen first even on a loaded machine (on 2
            // cores at load 10 the connect took up to 5 s after the ready line; a sanitized host
            // at that load missed 15 s).
            let deadline = Sanitizer.current == nil ? 15 : 60
            let host = try await HostTesting.start(directory, ["--deadline", "\(deadline)"])
            let connection = try await HostTesting.connect(directory)
            let closed = ClosedCollector(connection)
            let exit = await host.waitForExit()
            #expect(exit.status == 3 && !exit.bySignal)
            #expect(
                exit.stdoutLines == [
                    "ready \(directory.socket)",
                    #"{"outcome":"expired","returnedItems":null,"error":{"code":"EXPIRED","message":"the deadline of \#(deadline) s passed with neither exit nor cancel","details":null},"openedURLs":[]}"#,
                ])
            let error = await closed.error()
            #expect(error.code == .connectionClosed)
            #expect(error.message.contains("shuttingDown"))
            #expect(!FileManager.default.fileExists(atPath: directory.socket))
        }
    }

    @Test(arguments: [(SIGTERM, "SIGTERM", Int32(143)), (SIGINT, "SIGINT", Int32(130))])
    func aSignalInterruptsTheHost(signal: Int32, name: String, status: Int32) async throws {
        let directory = try TestDirectory()
        defer { directory.remove() }
        try await withHangGuard {
            let host = try await HostTesting.start(directory, ["--open-url", "allow"])
            let connection = try await HostTesting.connect(directory)
            let closed = ClosedCollector(connection)
            #expect(
                try await HostTesting.methods(connection).invokeMethod(
                    "openURL", arguments: HostTesting.map(["url": "https://example.com/x"])) == .bool(true))
            host.send(signal: signal)
            let exit = await host.waitForExit()
            #expect(exit.status == status && !exit.bySignal)
            #expect(
                exit.stdoutLines == [
                    "ready \(directory.socket)",
                    #"{"outcome":"interrupted","returnedItems":null,"error":{"code":"\#(name)","message":"the host was interrupted by \#(name)","details":null},"openedURLs":[{"url":"https://example.com/x","opened":true}]}"#,
                ])
            #expect(await closed.error().message.contains("shuttingDown"))
            #expect(!FileManager.default.fileExists(atPath: directory.socket))
        }
    }
}

/// The error a connection ended with, from `onClose`.
final class ClosedCollector: Sendable {
    private let stream: AsyncStream<MessengerError>

    init(_ connection: SocketConnection) {
        let (stream, continuation) = AsyncStream.makeStream(of: MessengerError.self)
        self.stream = stream
        connection.onClose { error in
            continuation.yield(error)
            continuation.finish()
        }
    }

    func error() async -> MessengerError {
        for await error in stream { return error }
        return MessengerError(.connectionClosed, "no close error reported")
    }
}

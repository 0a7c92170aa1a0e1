import ChannelBridgeTestSupport
import ChannelBridgeChannels
import ChannelBridgeCodec
import ChannelBridgeMessenger
import ChannelBridgeSocket
import Foundation
import Testing

/// Exactly-once completion and the shutdown sequence, seen frame by frame: a raw client puts
/// several requests in one write, so they are queued behind the call that ends the request.
@Suite struct CompletionRulesTests {
    private static let ext = HostTesting.extensionChannel

    /// The replies' order is the in-process host's: with isolation, the worker answers the ending
    /// call once the host has decided the end (a round trip on the control channel), so a later
    /// call's answer may leave first (replies may leave in any order: wire protocol §4, rule 2).
    static let orderNeedsTheHostProcess = "with isolation, the ending call's reply waits for the host process"

    @Test(.disabled(if: HostProcess.isolationForced, Comment(rawValue: orderNeedsTheHostProcess)))
    func aSecondExitOrCancelGetsRequestAlreadyCompleted() async throws {
        let directory = try TestDirectory()
        defer { directory.remove() }
        try await withHangGuard {
            let host = try await HostTesting.start(directory)
            let client = try RawClient(path: directory.socket)
            defer { client.closeSocket() }
            try client.write(
                RawClient.hello()
                    + RawClient.methodCall(id: 1, channel: Self.ext, method: "exit", arguments: .list(["first"]))
                    + RawClient.methodCall(id: 2, channel: Self.ext, method: "exit", arguments: .list(["second"]))
                    + RawClient.methodCall(
                        id: 3, channel: Self.ext, method: "cancel",
                        arguments: HostTesting.map(["code": "LATE"])))
            let frames = await client.readUntilClosed()
            let alreadyCompleted = { (method: String) in
                try StandardMethodCodec().encodeErrorEnvelope(
                    MethodError(
                        code: "REQUEST_ALREADY_COMPLETED",
                        message: "\(method): the extension request has already ended (completed)",
                        details: HostTesting.map(["outcome": "completed"])))
            }
            #expect(
                frames == [
                    .hello(role: 1),
                    .reply(id: 1, status: 0, payload: try StandardMethodCodec().encodeSuccessEnvelope(.null)),
                    .reply(id: 2, status: 0, payload: try alreadyCompleted("exit")),
                    .reply(id: 3, status: 0, payload: try alreadyCompleted("cancel")),
                    .goodbye(code: 5, reason: "host is shutting down (completed)"),
                ])
            let exit = await host.waitForExit()
            #expect(exit.status == 0)
            // The first exit, and only it, is in the record.
            #expect(
                exit.stdoutLines.last
                    == #"{"outcome":"completed","returnedItems":["first"],"error":null,"openedURLs":[]}"#)
        }
    }

    @Test(.disabled(if: HostProcess.isolationForced, Comment(rawValue: orderNeedsTheHostProcess)))
    func requestsArrivingAfterTheEndGetStatusTwo() async throws {
        let directory = try TestDirectory()
        defer { directory.remove() }
        try await withHangGuard {
            let host = try await HostTesting.start(directory)
            let client = try RawClient(path: directory.socket)
            defer { client.closeSocket() }
            let key = HostTesting.map(["key": "k"])
            try client.write(
                RawClient.hello()
                    + RawClient.methodCall(
                        id: 7, channel: Self.ext, method: "cancel",
                        arguments: HostTesting.map(["code": "NO"]))
                    + RawClient.methodCall(id: 8, channel: Self.ext, method: "getInputItems")
                    + RawClient.methodCall(
                        id: 9, channel: HostTesting.prefsChannel, method: "getString", arguments: key))
            let frames = await client.readUntilClosed()
            let shuttingDown = Array("host is shutting down".utf8)
            #expect(
                frames == [
                    .hello(role: 1),
                    .reply(id: 7, status: 0, payload: try StandardMethodCodec().encodeSuccessEnvelope(.null)),
                    .reply(id: 8, status: 2, payload: shuttingDown),
                    .reply(id: 9, status: 2, payload: shuttingDown),
                    .goodbye(code: 5, reason: "host is shutting down (cancelled)"),
                ])
            #expect(await host.waitForExit().status == 2)
        }
    }

    @Test func everySessionIsToldGoodbyeShuttingDown() async throws {
        let directory = try TestDirectory()
        defer { directory.remove() }
        try await withHangGuard {
            let host = try await HostTesting.start(directory)
            let raw = try RawClient(path: directory.socket)
            defer { raw.closeSocket() }
            try raw.write(RawClient.hello())
            let others = [try await HostTesting.connect(directory), try await HostTesting.connect(directory)]
            let closed = others.map(ClosedCollector.init)
            let ender = try await HostTesting.connect(directory)
            let enderClosed = ClosedCollector(ender)
            // Every session is live and served before the end.
            for connection in others + [ender] {
                #expect(
                    try await HostTesting.methods(connection).invokeMethod("getInputItems")
                        == .list([HostTesting.map(["attachments": .list([])])]))
            }
            #expect(try await HostTesting.methods(ender).invokeMethod("exit") == .null)

            for collector in closed + [enderClosed] {
                let error = await collector.error()
                #expect(error.code == .connectionClosed)
                #expect(error.message == "the peer said goodbye (shuttingDown): host is shutting down (completed)")
            }
            #expect(
                await raw.readUntilClosed() == [
                    .hello(role: 1),
                    .goodbye(code: 5, reason: "host is shutting down (completed)"),
                ])
            #expect(await host.waitForExit().status == 0)
        }
    }

    @Test func twoConcurrentSessionsEachKeepTheirOwnAppGroup() async throws {
        let directory = try TestDirectory()
        defer { directory.remove() }
        try await withHangGuard {
            let host = try await HostTesting.start(directory, ["--app-group", "group.a", "--app-group", "group.b"])
            let first = try await HostTesting.connect(directory)
            let second = try await HostTesting.connect(directory)
            let prefsA = HostTesting.methods(first, HostTesting.prefsChannel)
            let prefsB = HostTesting.methods(second, HostTesting.prefsChannel)
            _ = try await prefsA.invokeMethod("setAppGroup", arguments: HostTesting.map(["appGroup": "group.a"]))
            _ = try await prefsB.invokeMethod("setAppGroup", arguments: HostTesting.map(["appGroup": "group.b"]))
            // Both sessions write at the same time, each into its own group.
            try await withThrowingTaskGroup(of: Void.self) { group in
                for (prefs, name) in [(prefsA, "a"), (prefsB, "b")] {
                    group.addTask {
                        for n in 0..<50 {
                            _ = try await prefs.invokeMethod(
                                "setInt",
                                arguments: HostTesting.map(["key": .string("\(name)\(n)"), "value": .int32(Int32(n))]))
                        }
                    }
                }
                try await group.waitForAll()
            }
            let allA = try await prefsA.invokeMethod("getAll")
            let allB = try await prefsB.invokeMethod("getAll")
            #expect(allA == .map((0..<50).map { .init(.string("a\($0)"), .int32(Int32($0))) }))
            #expect(allB == .map((0..<50).map { .init(.string("b\($0)"), .int32(Int32($0))) }))
            _ = try await HostTesting.methods(second).invokeMethod("exit")
            #expect(await host.waitForExit().status == 0)
        }
    }
}

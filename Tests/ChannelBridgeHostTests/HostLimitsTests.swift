import ChannelBridgeChannels
import ChannelBridgeCodec
import ChannelBridgeMessenger
import ChannelBridgeSocket
import ChannelBridgeTestSupport
import Foundation
import Testing

/// The host's limits (extension-host.md §1.7) through the real `extension-host` process.
@Suite struct HostLimitsTests {
    @Test func aClientOverTheConnectionLimitGetsItsGoodbyeAndTheHostGoesOn() async throws {
        let directory = try TestDirectory()
        defer { directory.remove() }
        try await withHangGuard(seconds: 60) {
            let host = try await HostTesting.start(directory, ["--max-connections", "1", "--echo"])
            let first = try await HostTesting.connect(directory)
            let second = try await SocketConnection.connect(to: directory.socket, options: HostTesting.clientOptions)
            await #expect {
                try await second.messenger.waitForPeerHello()
            } throws: { error in
                guard let error = error as? MessengerError else { return false }
                return error.code == .tooManyConnections && error.message.contains("at most 1 connections")
            }
            // The first session is served as before; once it ends, a new one is.
            let echo = BasicMessageChannel(name: "channelbridge/echo", messenger: first.messenger, codec: BinaryCodec())
            #expect(try await echo.send([1]) == [1])
            first.close()
            await first.waitUntilClosed()
            let third = try await Self.connectWhenServed(directory)
            #expect(
                try await BasicMessageChannel(
                    name: "channelbridge/echo", messenger: third.messenger, codec: BinaryCodec()
                )
                .send([3]) == [3])
            host.send(signal: SIGTERM)
            #expect(await host.waitForExit().status == 143)
        }
    }

    /// A call whose arguments would take more memory to decode than the codec allows for its size
    /// is answered with REQUEST_TOO_LARGE naming the channel and the method; the session and the
    /// host go on, and the list under the key is untouched.
    @Test func anAppendWhoseValuesAreTooLargeForItsSizeIsRefusedAndTheSessionGoesOn() async throws {
        let directory = try TestDirectory()
        defer { directory.remove() }
        try await withHangGuard(seconds: 60) {
            let host = try await HostTesting.start(directory, [])
            let connection = try await HostTesting.connect(directory)
            let prefs = HostTesting.methods(connection, HostTesting.prefsChannel)
            _ = try await prefs.invokeMethod(
                "appendToList", arguments: HostTesting.map(["key": "items", "values": ["a"]]))
            // 1,000,000 nulls: 1 MB on the wire, 24 MB as values.
            let nulls = StandardValue.list(Array(repeating: .null, count: 1_000_000))
            let refused = try await #require(throws: MethodError.self) {
                try await prefs.invokeMethod(
                    "appendToList", arguments: HostTesting.map(["key": "items", "values": nulls]))
            }
            #expect(refused.code == MethodChannel.requestTooLargeErrorCode)
            #expect(
                refused.message?.hasPrefix(
                    "The call to appendToList on channel shared_preference_app_group was refused: "
                        + "list of 1000000 elements would take 24000032 bytes of memory") == true,
                "\(refused)")
            #expect(
                refused.details
                    == HostTesting.map(["channel": "shared_preference_app_group", "method": "appendToList"]))
            // The same session is served; the refused call wrote nothing.
            _ = try await prefs.invokeMethod(
                "appendToList", arguments: HostTesting.map(["key": "items", "values": ["b"]]))
            #expect(
                try await prefs.invokeMethod("get", arguments: HostTesting.map(["key": "items"]))
                    == .list(["a", "b"]))
            host.send(signal: SIGTERM)
            #expect(await host.waitForExit().status == 143)
        }
    }

    @Test func clientsThatLeaveAFrameUnfinishedAreCutAndTheirSlotsServeOthers() async throws {
        let directory = try TestDirectory()
        defer { directory.remove() }
        try await withHangGuard(seconds: 60) {
            let host = try await HostTesting.start(
                directory, ["--max-connections", "2", "--frame-timeout", "0.3", "--echo"])
            // Two clients take both slots, idle after their HELLO (never cut for that) ...
            let holders = [try RawClient(path: directory.socket), try RawClient(path: directory.socket)]
            for holder in holders { try holder.write(RawClient.hello()) }
            let refused = try await SocketConnection.connect(to: directory.socket, options: HostTesting.clientOptions)
            await #expect {
                try await refused.messenger.waitForPeerHello()
            } throws: { error in
                (error as? MessengerError)?.code == .tooManyConnections
            }
            // ... then begin a frame and never finish it.
            let begun = Array(RawClient.request(id: 1, channel: "channelbridge/echo", payload: [1, 2, 3]).prefix(9))
            for holder in holders { try holder.write(begun) }
            for holder in holders {
                let frames = await holder.readUntilClosed()
                holder.closeSocket()
                #expect(frames.first == .hello(role: 1))
                guard case .goodbye(7, let reason)? = frames.last, frames.count == 2 else {
                    Issue.record("no GOODBYE frameTimeout: \(frames)")
                    continue
                }
                #expect(reason.contains("not finished in time"), "\(reason)")
            }
            let served = try await Self.connectWhenServed(directory)
            #expect(
                try await BasicMessageChannel(
                    name: "channelbridge/echo", messenger: served.messenger, codec: BinaryCodec()
                )
                .send([4]) == [4])
            host.send(signal: SIGTERM)
            #expect(await host.waitForExit().status == 143)
        }
    }

    /// The host counts a session until its socket is closed on its side, a moment after the
    /// client sees the end; a client refused in between tries again.
    static func connectWhenServed(_ directory: TestDirectory) async throws -> SocketConnection {
        while true {
            let connection = try await SocketConnection.connect(
                to: directory.socket, options: HostTesting.clientOptions)
            do {
                _ = try await connection.messenger.waitForPeerHello()
                return connection
            } catch let error as MessengerError where error.code == .tooManyConnections {
                await connection.waitUntilClosed()
            }
        }
    }

    @Test func aClientThatNeverSaysHelloIsClosedAfterTheHelloTimeout() async throws {
        let directory = try TestDirectory()
        defer { directory.remove() }
        try await withHangGuard(seconds: 60) {
            let host = try await HostTesting.start(directory, ["--hello-timeout", "0.2"])
            let raw = try RawClient(path: directory.socket)
            let frames = await raw.readUntilClosed()
            raw.closeSocket()
            #expect(frames == [.hello(role: 1), .goodbye(code: 2, reason: "no HELLO within 0.2 s")])
            host.send(signal: SIGTERM)
            #expect(await host.waitForExit().status == 143)
        }
    }
}

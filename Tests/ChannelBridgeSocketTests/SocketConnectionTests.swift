import ChannelBridgeMessenger
import ChannelBridgeSocket
import ChannelBridgeTestSupport
import Foundation
import Glibc
import Testing

/// Sessions over real Unix sockets in this process.
@Suite struct SocketConnectionTests {
    /// A listener on a fresh path whose sessions are configured by `configure`, and a cleanup.
    static func serve(
        options: SocketListener.Options = .init(),
        _ configure: @escaping @Sendable (SocketConnection) -> Void = { _ in }
    )
        throws -> (SocketListener, TestDirectory)
    {
        let directory = try TestDirectory()
        let listener = try SocketListener(
            path: directory.path + "/host.sock", options: options, onConnection: configure)
        return (listener, directory)
    }

    @Test func connectAndServeBothWays() async throws {
        try await withHangGuard { () async throws in
            let accepted = Collector<SocketConnection>()
            let (listener, directory) = try Self.serve(options: .init(connection: .init(name: "test host"))) {
                connection in
                accepted.append(connection)
                connection.messenger.setMessageHandler(onChannel: "echo") { $0 }
            }
            defer { directory.remove() }
            let client = try await SocketConnection.connect(to: listener.path, options: .init(name: "test client")) {
                $0.messenger.setMessageHandler(onChannel: "client/side") { _ in [0xC1] }
            }
            #expect(try await client.messenger.send(onChannel: "echo", message: [1, 2, 3]) == [1, 2, 3])
            #expect(try await client.messenger.send(onChannel: "echo", message: nil) == nil)
            #expect(try await client.messenger.send(onChannel: "nobody", message: [1]) == nil)
            let hello = try await client.messenger.waitForPeerHello()
            #expect(hello.role == .host && hello.peerName == "test host")
            #expect(client.peerCredentials.uid == geteuid())
            #expect(client.peerCredentials.pid == getpid())
            try await accepted.first(1)
            let server = accepted.all[0]
            #expect(try await server.messenger.send(onChannel: "client/side", message: nil) == [0xC1])
            #expect(server.peerName == "test client")
            try await client.messenger.ping()
            try await server.messenger.ping()
            client.close()
            await client.waitUntilClosed()
            await server.waitUntilClosed()
            #expect(server.messenger.closeError?.code == .connectionClosed)
            listener.close()
            await listener.waitUntilClosed()
        }
    }

    @Test func sixteenMebibytePayloadRoundTrip() async throws {
        try await withHangGuard(seconds: 60) { () async throws in
            let (listener, directory) = try Self.serve { connection in
                // What it received and one byte more: copies only (see `SeededGenerator.bytes`).
                connection.messenger.setMessageHandler(onChannel: "bytes") { $0.map { $0 + [0xAB] } }
            }
            defer { directory.remove() }
            let client = try await SocketConnection.connect(to: listener.path, options: .forTests)
            var generator = SeededGenerator(seed: 16)
            let payload = generator.bytes(count: 16 << 20)
            let reply = try await client.messenger.send(onChannel: "bytes", message: payload)
            #expect(reply == payload + [0xAB])
            client.close()
            await client.waitUntilClosed()
            listener.close()
            await listener.waitUntilClosed()
        }
    }

    @Test func thousandConcurrentCallsWithOutOfOrderReplies() async throws {
        try await withHangGuard(seconds: 60) { () async throws in
            let count = 1000
            let arrived = Collector<Int>()
            let gates = (0..<count).map { _ in Gate() }
            // Every handler waits until all have arrived, so all must be allowed to run at once.
            let options = SocketListener.Options(connection: .init(maxHandlersInFlight: count))
            let (listener, directory) = try Self.serve(options: options) { connection in
                connection.messenger.setMessageHandler(onChannel: "slow") { message in
                    let number = Int(message![0]) << 8 | Int(message![1])
                    arrived.append(number)
                    await gates[number].wait()
                    return message! + [0xAB]
                }
            }
            defer { directory.remove() }
            let client = try await SocketConnection.connect(to: listener.path, options: .forTests)
            let replied = Collector<Int>()
            try await withThrowingTaskGroup(of: Void.self) { group in
                for number in 0..<count {
                    group.addTask {
                        let message: [UInt8] = [UInt8(number >> 8), UInt8(number & 0xFF)]
                        let reply = try await client.messenger.send(onChannel: "slow", message: message)
                        #expect(reply == message + [0xAB])
                        replied.append(number)
                    }
                }
                try await arrived.first(count)
                for number in arrived.all.reversed() { gates[number].open() }
                try await group.waitForAll()
            }
            #expect(Set(replied.all) == Set(0..<count))
            client.close()
            await client.waitUntilClosed()
            listener.close()
            await listener.waitUntilClosed()
        }
    }

    @Test func pendingCallsFailAtOnceWhenTheHostEndsTheSession() async throws {
        try await withHangGuard { () async throws in
            let accepted = Collector<SocketConnection>()
            let arrived = Collector<String>()
            let (listener, directory) = try Self.serve { connection in
                accepted.append(connection)
                for channel in ["a", "b", "c"] {
                    connection.messenger.setMessageHandler(onChannel: channel) { _ in
                        arrived.append(channel)
                        try await untilCancelled()
                        return nil
                    }
                }
            }
            defer { directory.remove() }
            let client = try await SocketConnection.connect(to: listener.path, options: .forTests)
            let calls = ["a", "b", "c"].map { channel in
                Task { () async -> (String, (any Error)?) in
                    do {
                        _ = try await client.messenger.send(onChannel: channel, message: nil); return (channel, nil)
                    } catch { return (channel, error) }
                }
            }
            try await arrived.first(3)
            accepted.all[0].messenger.close(code: .shuttingDown, reason: "test", waitForOwedReplies: false)
            for call in calls {
                let (channel, error) = await call.value
                let failure = try #require(error as? MessengerError)
                #expect(failure.code == .connectionClosed)
                #expect(failure.channel == channel)
            }
            await client.waitUntilClosed()
            listener.close()
            await listener.waitUntilClosed()
        }
    }

    @Test func connectErrorsAreClear() async throws {
        try await withHangGuard { () async throws in
            let directory = try TestDirectory()
            defer { directory.remove() }
            await #expect { try await SocketConnection.connect(to: directory.path + "/none.sock") } throws: {
                ($0 as? SocketError)?.code == .notFound
            }
            // A stale socket file: bound, then its listener closed without removing it.
            let stale = directory.path + "/stale.sock"
            close(RawClient.listen(path: stale))
            await #expect { try await SocketConnection.connect(to: stale) } throws: {
                ($0 as? SocketError)?.code == .connectionRefused
            }
            await #expect { try await SocketConnection.connect(to: String(repeating: "x", count: 200)) } throws: {
                ($0 as? SocketError)?.code == .invalidPath
            }
        }
    }
}

/// `Options.socketSendBufferSize`: both ends of a session ask the kernel for it, and `nil` leaves
/// the system's default.
@Suite struct SocketSendBufferTests {
    /// A number from `/proc/sys/net/core/NAME`.
    static func kernelSetting(_ name: String) throws -> Int {
        let text = try String(contentsOfFile: "/proc/sys/net/core/" + name, encoding: .utf8)
        return try #require(Int(text.trimmingCharacters(in: .whitespacesAndNewlines)), "\(name): \(text)")
    }

    /// What the kernel reports for a request of `bytes` on this machine: twice it, at most twice
    /// `net.core.wmem_max`.
    static func accounted(_ bytes: Int) throws -> Int {
        2 * Swift.min(bytes, try kernelSetting("wmem_max"))
    }

    @Test(arguments: [SocketConnection.Options.defaultSocketSendBufferSize, 300_000, nil] as [Int?])
    func bothEndsAskForTheSendBuffer(size: Int?) async throws {
        try await withHangGuard { () async throws in
            let accepted = Collector<SocketConnection>()
            let options = SocketConnection.Options(socketSendBufferSize: size)
            let (listener, directory) = try SocketConnectionTests.serve(options: .init(connection: options)) {
                accepted.append($0)
            }
            defer { directory.remove() }
            let client = try await SocketConnection.connect(to: listener.path, options: options)
            let host = try await accepted.first(1)[0]
            let expected = try size.map(Self.accounted) ?? Self.kernelSetting("wmem_default")
            #expect(client.socketSendBufferSize == expected)
            #expect(host.socketSendBufferSize == expected)
            client.close()
            listener.close()
            await listener.waitUntilClosed()
        }
    }
}

import ChannelBridgeMessenger
import ChannelBridgeTestSupport
import ChannelBridgeTesting
import Testing

/// The session core over the in-memory pair (real encoder and decoder, no sockets).
@Suite struct MessengerConnectionTests {
    @Test func sendAndReply() async throws {
        try await withHangGuard { () async throws in
            let (client, host) = InMemoryMessenger.makePair()
            defer { client.close() }
            host.setMessageHandler(onChannel: "echo") { message in message.map { $0 + [0xFF] } }
            #expect(try await client.send(onChannel: "echo", message: [1, 2]) == [1, 2, 0xFF])
            #expect(try await client.send(onChannel: "echo", message: []) == [0xFF])
            // A null request payload reaches the handler as nil, distinct from zero bytes.
            #expect(try await client.send(onChannel: "echo", message: nil) == nil)
            // Requests go both ways.
            client.setMessageHandler(onChannel: "back") { _ in [7] }
            #expect(try await host.send(onChannel: "back", message: nil) == [7])
            #expect(client.peerHello?.peerName == "in-memory host")
            #expect(host.peerHello?.role == .client)
        }
    }

    @Test func nullReplies() async throws {
        try await withHangGuard { () async throws in
            let (client, host) = InMemoryMessenger.makePair()
            defer { client.close() }
            host.setMessageHandler(onChannel: "nothing") { _ in nil }
            #expect(try await client.send(onChannel: "nothing", message: [1]) == nil)
            // No handler at all: a null reply too.
            #expect(try await client.send(onChannel: "nobody/here", message: [1]) == nil)
        }
    }

    @Test func handlerFailureIsStatusTwo() async throws {
        struct Broken: Error, CustomStringConvertible { var description: String { "disk on fire" } }
        try await withHangGuard { () async throws in
            let (client, host) = InMemoryMessenger.makePair()
            defer { client.close() }
            host.setMessageHandler(onChannel: "fails") { _ in throw Broken() }
            await #expect(throws: MessengerError(.handlerFailed, "disk on fire", channel: "fails")) {
                try await client.send(onChannel: "fails", message: [])
            }
            // The session survives a failing handler.
            host.setMessageHandler(onChannel: "ok") { _ in [1] }
            #expect(try await client.send(onChannel: "ok", message: nil) == [1])
        }
    }

    @Test func oneWayMessagesArriveInOrderWithNullKept() async throws {
        try await withHangGuard { () async throws in
            let (client, host) = InMemoryMessenger.makePair()
            defer { client.close() }
            let seen = Collector<[UInt8]?>()
            host.setMessageHandler(onChannel: "events") { message in
                seen.append(message)
                return [0xEE]  // ignored: messages are never answered
            }
            try client.post(onChannel: "events", message: [1])
            try client.post(onChannel: "events", message: [])
            try client.post(onChannel: "events", message: nil)
            try await seen.first(3)
            #expect(seen.all == [[1], [], nil])
        }
    }

    @Test func fifoPerChannelWithSuspendingHandlers() async throws {
        try await withHangGuard { () async throws in
            let (client, host) = InMemoryMessenger.makePair()
            defer { client.close() }
            let arrivals = Collector<UInt32>()
            host.setMessageHandler(onChannel: "fifo") { message in
                let number = message!.withUnsafeBytes { $0.loadUnaligned(as: UInt32.self) }
                arrivals.append(number)  // the synchronous part: arrival order
                try await Task.sleep(for: .microseconds(Int(number % 7) * 50))  // then suspend
                return message
            }
            let count: UInt32 = 1000
            // One task posts and sends alternately, so the arrival order is fixed by it.
            try await withThrowingTaskGroup(of: Void.self) { group in
                for number in 0..<count {
                    let bytes = withUnsafeBytes(of: number) { Array($0) }
                    if number % 2 == 0 {
                        try client.post(onChannel: "fifo", message: bytes)
                    } else {
                        let reply = try await client.send(onChannel: "fifo", message: bytes)
                        #expect(reply == bytes)
                    }
                }
                try await group.waitForAll()
            }
            try await arrivals.first(Int(count))
            #expect(arrivals.all == Array(0..<count))
        }
    }

    @Test func thousandConcurrentSendsWithOutOfOrderRepliesAreMatched() async throws {
        try await withHangGuard { () async throws in
            let (client, host) = InMemoryMessenger.makePair()
            defer { client.close() }
            let count = 1000
            let arrived = Collector<Int>()
            let gates = (0..<count).map { _ in Gate() }
            host.setMessageHandler(onChannel: "slow") { message in
                let number = Int(message![0]) << 8 | Int(message![1])
                arrived.append(number)
                await gates[number].wait()
                return message! + [0xAB]
            }
            let replied = Collector<Int>()
            try await withThrowingTaskGroup(of: Void.self) { group in
                for number in 0..<count {
                    group.addTask {
                        let message: [UInt8] = [UInt8(number >> 8), UInt8(number & 0xFF)]
                        let reply = try await client.send(onChannel: "slow", message: message)
                        #expect(reply == message + [0xAB])
                        replied.append(number)
                    }
                }
                try await arrived.first(count)
                // Answer in reverse arrival order.
                for number in arrived.all.reversed() { gates[number].open() }
                try await group.waitForAll()
            }
            #expect(Set(replied.all) == Set(0..<count))
            #expect(replied.all != arrived.all)
        }
    }

    @Test func sixteenMebibytesRoundTrip() async throws {
        try await withHangGuard { () async throws in
            let (client, host) = InMemoryMessenger.makePair()
            defer { client.close() }
            // The host answers with what it received and one byte more: copies only, no loop over
            // the bytes in this unoptimised build, where the work would hold a pool thread.
            host.setMessageHandler(onChannel: "bytes") { $0.map { $0 + [0xAB] } }
            var generator = SeededGenerator(seed: 16)
            let payload = generator.bytes(count: 16 << 20)
            let reply = try await client.send(onChannel: "bytes", message: payload)
            #expect(reply == payload + [0xAB])
        }
    }

    @Test func tooLargeOutgoingMessageIsRefusedLocally() async throws {
        try await withHangGuard { () async throws in
            let (client, host) = InMemoryMessenger.makePair(client: .init(name: "c", maxFrameLength: 100))
            defer { client.close() }
            host.setMessageHandler(onChannel: "c") { $0 }
            await #expect(throws: MessengerError.self) {
                try await client.send(onChannel: "c", message: Array(repeating: 0, count: 100))
            }
            #expect(throws: MessengerError.self) {
                try client.post(onChannel: "c", message: Array(repeating: 0, count: 100))
            }
            #expect(try await client.send(onChannel: "c", message: Array(repeating: 0, count: 50))?.count == 50)
        }
    }

    @Test func invalidChannelNamesAreRefused() async throws {
        let (client, _) = InMemoryMessenger.makePair()
        defer { client.close() }
        await #expect { try await client.send(onChannel: "", message: nil) } throws: {
            ($0 as? MessengerError)?.code == .invalidChannel
        }
        #expect { try client.post(onChannel: String(repeating: "x", count: 65_536), message: nil) } throws: {
            ($0 as? MessengerError)?.code == .invalidChannel
        }
    }

    @Test func handlerTokensNeverRemoveANewerHandler() async throws {
        try await withHangGuard { () async throws in
            let (client, host) = InMemoryMessenger.makePair()
            defer { client.close() }
            let old = host.setMessageHandler(onChannel: "h") { _ in [1] }
            let new = host.setMessageHandler(onChannel: "h") { _ in [2] }
            #expect(old != new)
            host.removeMessageHandler(old)
            #expect(try await client.send(onChannel: "h", message: nil) == [2])
            host.removeMessageHandler(new)
            #expect(try await client.send(onChannel: "h", message: nil) == nil)
            let third = host.setMessageHandler(onChannel: "h") { _ in [3] }
            host.setMessageHandler(onChannel: "h", nil)
            host.removeMessageHandler(third)
            #expect(try await client.send(onChannel: "h", message: nil) == nil)
        }
    }

    @Test func pingIsAnsweredWithPong() async throws {
        try await withHangGuard { () async throws in
            let (client, host) = InMemoryMessenger.makePair()
            defer { client.close() }
            try await client.ping()
            try await host.ping()
        }
    }
}

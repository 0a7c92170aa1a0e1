import ChannelBridgeMessenger
import ChannelBridgeSocket
import ChannelBridgeTestSupport
import Foundation
import Glibc
import Testing

/// The frame deadline (wire protocol §4.10, rule 9) against a real listener and raw peers.
@Suite struct FrameDeadlineTests {
    static func options(
        frameTimeout: Duration, maxHandlers: Int = 64, minimumRate: Int = 1 << 20,
        maxConnections: Int = 128
    ) -> SocketListener.Options {
        SocketListener.Options(
            connection: SocketConnection.Options(
                maxHandlersInFlight: maxHandlers, frameTimeout: frameTimeout,
                frameMinimumRate: minimumRate),
            maxConnections: maxConnections)
    }

    static func configure(_ gate: Gate? = nil) -> @Sendable (SocketConnection) -> Void {
        { connection in
            connection.messenger.setMessageHandler(onChannel: "echo") { $0 }
            connection.messenger.setMessageHandler(onChannel: "gate") { message in
                await gate?.wait()
                return message
            }
        }
    }

    /// The first bytes of a REQUEST on `echo` whose rest never comes.
    static func frameBegun() throws -> [UInt8] {
        Array(try FrameEncoder.encode(.request(id: 9, channel: "echo", payload: [1, 2, 3])).prefix(7))
    }

    /// A frame's kind, and a GOODBYE's reason.
    static func summary(_ frame: Frame) -> String {
        if case .goodbye(let code, let reason) = frame { return "GOODBYE \(code): \(reason)" }
        return "\(frame.kind)"
    }

    static func isFrameTimeout(_ frame: Frame) -> Bool {
        if case .goodbye(.frameTimeout, _) = frame { return true }
        return false
    }

    @Test func aPeerThatStopsInTheMiddleOfAFrameGetsGoodbyeAndItsSlotIsFreed() async throws {
        try await withHangGuard(seconds: 30) { () async throws in
            let directory = try TestDirectory()
            defer { directory.remove() }
            let sessions = Inbox<SocketConnection>()
            let listener = try SocketListener(
                path: directory.path + "/h.sock",
                options: Self.options(frameTimeout: .milliseconds(200), maxConnections: 1)
            ) {
                Self.configure()($0)
                sessions.put($0)
            }
            let peer = try RawPeer(path: listener.path)
            defer { peer.close() }
            try peer.write([RawPeer.hello()])
            peer.write(try Self.frameBegun())
            let received = try await onThreadThrowing { try peer.readFrames(until: Self.isFrameTimeout) }.get()
            #expect(received.first?.kind == .hello)
            guard case .goodbye(.frameTimeout, let reason)? = received.last else {
                Issue.record("no GOODBYE frameTimeout: \(received)")
                return
            }
            #expect(reason.contains("7 bytes of it arrived"), "\(reason)")
            // Then the end of the session, and the slot is free for another client.
            #expect(try await onThreadThrowing { try peer.readFrames() }.get().isEmpty)
            let session = await sessions.next()
            await session.waitUntilClosed()
            #expect(session.messenger.closeError?.code == .frameTimeout)
            let next = try await SocketConnection.connect(to: listener.path, options: .forTests)
            #expect(try await next.messenger.send(onChannel: "echo", message: [5]) == [5])
            next.close()
            await next.waitUntilClosed()
            listener.close()
            await listener.waitUntilClosed()
        }
    }

    /// A HELLO trickled a byte at a time is cut by the HELLO timeout, frame deadline or not.
    @Test func aTrickledHelloIsCutByTheHelloTimeout() async throws {
        try await withHangGuard(seconds: 30) { () async throws in
            let directory = try TestDirectory()
            defer { directory.remove() }
            let options = SocketListener.Options(
                connection: SocketConnection.Options(
                    helloTimeout: .milliseconds(200),
                    frameTimeout: nil))
            let listener = try SocketListener(
                path: directory.path + "/h.sock", options: options, onConnection: Self.configure())
            let peer = try RawPeer(path: listener.path)
            defer { peer.close() }
            // A HELLO whose length field announces 60,000 bytes (a long peer name): trickled a byte per
            // 50 ms, it would take 50 minutes, so only the HELLO timeout can end it.
            let nameLength = 60_000 - 12  // the frame length less kind, magic, version, flags, role, name length
            let hello: [UInt8] =
                [0x60, 0xEA, 0, 0, 0x01] + Array("CHBR".utf8) + [1, 0, 0, 0, 0]
                + [UInt8(nameLength & 0xFF), UInt8(nameLength >> 8)] + [UInt8](repeating: 0x61, count: 2000)
            let received = try await onThreadThrowing { () throws -> [Frame] in
                guard try peer.readFrames(1).first?.kind == .hello else { return [] }
                return try peer.trickle(hello, milliseconds: 50)
            }.get()
            #expect(received == [.goodbye(code: .protocolError, reason: "no HELLO within 0.2 s")])
            listener.close()
            await listener.waitUntilClosed()
        }
    }

    @Test func aPeerIdleBetweenFramesIsNotClosed() async throws {
        try await withHangGuard(seconds: 30) { () async throws in
            let directory = try TestDirectory()
            defer { directory.remove() }
            let listener = try SocketListener(
                path: directory.path + "/h.sock",
                options: Self.options(frameTimeout: .milliseconds(200)),
                onConnection: Self.configure())
            let idle = try RawPeer(path: listener.path)
            defer { idle.close() }
            try idle.write([RawPeer.hello(), .request(id: 1, channel: "echo", payload: [1])])
            #expect(
                try await onThreadThrowing { try idle.readFrames(2) }.get().last
                    == Frame.reply(id: 1, result: .bytes([1])))
            // A second peer that stops in a frame is cut after the deadline; the idle one has been
            // idle at least that long when that happens.
            let slow = try RawPeer(path: listener.path)
            defer { slow.close() }
            try slow.write([RawPeer.hello()])
            slow.write(try Self.frameBegun())
            let cut = try await onThreadThrowing { try slow.readFrames(until: Self.isFrameTimeout) }.get()
            #expect(cut.last.map(Self.isFrameTimeout) == true, "\(cut)")
            try idle.write([.request(id: 2, channel: "echo", payload: [2])])
            #expect(try await onThreadThrowing { try idle.readFrames(1) }.get() == [.reply(id: 2, result: .bytes([2]))])
            listener.close()
            await listener.waitUntilClosed()
        }
    }

    @Test func timeSpentHoldingThePeersInputBackDoesNotCount() async throws {
        try await withHangGuard(seconds: 30) { () async throws in
            let directory = try TestDirectory()
            defer { directory.remove() }
            let gate = Gate()
            let sessions = Inbox<SocketConnection>()
            let listener = try SocketListener(
                path: directory.path + "/h.sock",
                options: Self.options(frameTimeout: .milliseconds(500), maxHandlers: 1)
            ) {
                Self.configure(gate)($0)
                sessions.put($0)
            }
            // The second request waits for the one handler slot; the third frame is begun behind it.
            let peer = try RawPeer(path: listener.path)
            defer { peer.close() }
            let third = try FrameEncoder.encode(.request(id: 3, channel: "echo", payload: [3]))
            var bytes: [UInt8] = []
            for frame in [
                RawPeer.hello(), .request(id: 1, channel: "gate", payload: [1]),
                .request(id: 2, channel: "gate", payload: [2]),
            ] {
                try FrameEncoder.encode(frame, into: &bytes)
            }
            peer.write(bytes + third.prefix(6))
            let session = await sessions.next()
            await session.messenger.waitUntilInputHeld()
            // Held longer than the deadline: a peer that begins a frame later is cut meanwhile.
            let slow = try RawPeer(path: listener.path)
            defer { slow.close() }
            try slow.write([RawPeer.hello()])
            slow.write(try Self.frameBegun())
            let cut = try await onThreadThrowing { try slow.readFrames(until: Self.isFrameTimeout) }.get()
            #expect(cut.last.map(Self.isFrameTimeout) == true, "\(cut)")
            // The frame is finished while still held, then everything is answered: the peer was
            // not cut for the time this side held its input.
            peer.write(Array(third.dropFirst(6)))
            gate.open()
            let answers = try await onThreadThrowing { try peer.readFrames(4) }.get()
            #expect(answers.first?.kind == .hello)
            let replies = answers.dropFirst().compactMap { frame -> UInt32? in
                guard case .reply(let id, .bytes(let payload)) = frame, payload == [UInt8(id)] else { return nil }
                return id
            }
            #expect(replies.sorted() == [1, 2, 3], "\(answers.map(Self.summary))")
            listener.close()
            await listener.waitUntilClosed()
        }
    }

    @Test func aLargeFrameArrivingSteadilyIsNotCut() async throws {
        try await withHangGuard(seconds: 30) { () async throws in
            let directory = try TestDirectory()
            defer { directory.remove() }
            // 1 MiB in 16 pieces, 100 ms apart: about 1.5 s of waiting, far over the 200 ms timeout
            // alone, but 640 KiB/s, well above the 128 KiB/s minimum rate that extends it.
            let listener = try SocketListener(
                path: directory.path + "/h.sock",
                options: Self.options(frameTimeout: .milliseconds(200), minimumRate: 128 << 10),
                onConnection: Self.configure())
            let peer = try RawPeer(path: listener.path)
            defer { peer.close() }
            try peer.write([RawPeer.hello()])
            // The megabyte is made, sent and compared on the peer's thread, off the test pool.
            let (answered, summary) = try await onThreadThrowing { () throws -> (Bool, [String]) in
                let payload = (0..<(1 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 31) }
                let frame = try FrameEncoder.encode(.request(id: 1, channel: "echo", payload: payload))
                // The listener's HELLO first: the pacing stops at the first frame from the listener.
                guard try peer.readFrames(1).first?.kind == .hello else { return (false, ["no HELLO"]) }
                let received = try peer.sendPaced(frame, pieces: 16, milliseconds: 100)
                // Compared as a Bool: a failure would print the megabyte.
                return (received == [.reply(id: 1, result: .bytes(payload))], received.map(Self.summary))
            }.get()
            #expect(answered, "\(summary)")
            listener.close()
            await listener.waitUntilClosed()
        }
    }

    /// The slots of a full listener all held by peers that trickle a frame a byte at a time: a new
    /// client is refused while they hold them, and served once the deadline has cut them.
    @Test func tricklingPeersCannotHoldEverySlot() async throws {
        try await withHangGuard(seconds: 60) { () async throws in
            let directory = try TestDirectory()
            defer { directory.remove() }
            let limit = 4
            let sessions = Inbox<SocketConnection>()
            let listener = try SocketListener(
                path: directory.path + "/h.sock",
                options: Self.options(frameTimeout: .milliseconds(300), maxConnections: limit)
            ) {
                Self.configure()($0)
                sessions.put($0)
            }
            // limit + 2 peers say HELLO; the first `limit` are served, the others refused.
            var peers: [RawPeer] = []
            for _ in 0..<(limit + 2) {
                let peer = try RawPeer(path: listener.path)
                try peer.write([RawPeer.hello()])
                peers.append(peer)
            }
            defer { for peer in peers { peer.close() } }
            var served: [RawPeer] = []
            for peer in peers {
                let first = try await onThreadThrowing { try peer.readFrames(1) }.get()
                if first.first?.kind == .hello {
                    served.append(peer)
                } else {
                    #expect(
                        first == [
                            .goodbye(
                                code: .tooManyConnections, reason: "this host serves at most 4 connections at a time")
                        ])
                }
            }
            #expect(served.count == limit)
            // Full: a well-behaved client is refused.
            let refused = try await SocketConnection.connect(to: listener.path, options: .forTests)
            await #expect(throws: MessengerError.self) { _ = try await refused.messenger.waitForPeerHello() }
            #expect(refused.messenger.closeError?.code == .tooManyConnections)
            await refused.waitUntilClosed()
            // Each served peer begins a frame and sends one byte of it every 50 ms.
            let frame = try FrameEncoder.encode(
                .request(id: 1, channel: "echo", payload: [UInt8](repeating: 7, count: 200)))
            try await withThrowingTaskGroup(of: [Frame].self) { group in
                for peer in served {
                    group.addTask { try await onThreadThrowing { try peer.trickle(frame, milliseconds: 50) }.get() }
                }
                for try await received in group {
                    #expect(received.last.map(Self.isFrameTimeout) == true, "\(received)")
                }
            }
            for _ in 0..<limit { await sessions.next().waitUntilClosed() }
            // Their slots are free: a new client is served.
            let next = try await SocketConnection.connect(to: listener.path, options: .forTests)
            #expect(try await next.messenger.send(onChannel: "echo", message: [1]) == [1])
            next.close()
            await next.waitUntilClosed()
            listener.close()
            await listener.waitUntilClosed()
        }
    }
}

/// `onThread` for a throwing body: the thrown error comes back in the result.
func onThreadThrowing<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async -> Result<T, any Error> {
    await onThread { () -> Result<T, any Error> in Result { try body() } }
}

extension RawPeer {
    /// Sends `bytes` one at a time, `milliseconds` apart, until the listener sends a frame;
    /// returns the frames it sends until it closes.
    func trickle(_ bytes: [UInt8], milliseconds: Int32) throws -> [Frame] {
        for byte in bytes {
            write([byte])
            var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            if poll(&poller, 1, milliseconds) > 0 { break }
        }
        return try readFrames()
    }
}

extension RawPeer {
    /// Sends `bytes` in `pieces` parts, `milliseconds` apart, unless the listener sends a frame
    /// first; returns the next frame it sends.
    func sendPaced(_ bytes: [UInt8], pieces: Int, milliseconds: Int32) throws -> [Frame] {
        let piece = bytes.count / pieces + 1
        for start in stride(from: 0, to: bytes.count, by: piece) {
            write(Array(bytes[start..<min(start + piece, bytes.count)]))
            var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            if start + piece < bytes.count, poll(&poller, 1, milliseconds) > 0 { break }
        }
        return try readFrames(1)
    }
}

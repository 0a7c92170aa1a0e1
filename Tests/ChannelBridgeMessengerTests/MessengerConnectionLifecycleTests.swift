import ChannelBridgeMessenger
import ChannelBridgeTestSupport
import ChannelBridgeTesting
import Testing

/// Cancellation, GOODBYE and the end of a session, checked frame by frame with a hand-driven peer.
@Suite struct MessengerConnectionLifecycleTests {
    static let hostHello = Frame.hello(.init(role: .host, peerName: "raw host"))

    /// A started client whose host is driven by hand and has already said HELLO.
    static func rawClient() -> (MessengerConnection, InMemoryMessenger.RawPeer) {
        let (client, peer) = InMemoryMessenger.makeRawPeer(role: .client)
        peer.send(hostHello)
        return (client, peer)
    }

    static func requests(_ peer: InMemoryMessenger.RawPeer) throws -> [(id: UInt32, channel: String)] {
        requests(in: try peer.receivedFrames())
    }

    static func requests(in frames: [Frame]) -> [(id: UInt32, channel: String)] {
        frames.compactMap { frame in
            if case .request(let id, let channel, _) = frame { return (id, channel) }
            return nil
        }
    }

    @Test func cancellingTheCallerSendsCancel() async throws {
        try await withHangGuard { () async throws in
            let (client, peer) = Self.rawClient()
            defer { client.close() }  // drops the handlers and the peer, which hold each other
            let call = Task { try await client.send(onChannel: "slow", message: [1]) }
            await peer.waitForFrames { Self.requests(in: $0).count == 1 }
            call.cancel()
            await #expect(throws: CancellationError.self) { try await call.value }
            let id = try Self.requests(peer)[0].id
            #expect(id != 0)
            #expect(try peer.receivedFrames().last == .cancel(id: id))
            // A reply that crossed the CANCEL is ignored, and the session goes on.
            peer.send(.reply(id: id, result: .bytes([9])))
            let next = Task { try await client.send(onChannel: "slow", message: [2]) }
            await peer.waitForFrames { Self.requests(in: $0).count == 2 }
            let nextID = try Self.requests(peer)[1].id
            #expect(nextID != id)
            peer.send(.reply(id: nextID, result: .bytes([2])))
            #expect(try await next.value == [2])
            #expect(client.closeError == nil)
        }
    }

    @Test func alreadyCancelledCallerSendsNothing() async throws {
        try await withHangGuard { () async throws in
            let (client, peer) = Self.rawClient()
            defer { client.close() }  // drops the handlers and the peer, which hold each other
            let before = peer.receivedBytes.count
            let call = Task {
                withUnsafeCurrentTask { $0?.cancel() }
                return try await client.send(onChannel: "x", message: nil)
            }
            await #expect(throws: CancellationError.self) { try await call.value }
            #expect(peer.receivedBytes.count == before)
        }
    }

    @Test func cancelReachesTheHandlerTask() async throws {
        try await withHangGuard { () async throws in
            let (client, host) = InMemoryMessenger.makePair()
            defer { client.close() }
            let started = Gate()
            let outcome = Collector<String>()
            host.setMessageHandler(onChannel: "slow") { _ in
                started.open()
                do {
                    try await untilCancelled()
                    outcome.append("finished")
                } catch {
                    outcome.append("cancelled")
                    throw error
                }
                return nil
            }
            let call = Task { try await client.send(onChannel: "slow", message: nil) }
            await started.wait()
            call.cancel()
            await #expect(throws: CancellationError.self) { try await call.value }
            try await outcome.first(1)
            #expect(outcome.all == ["cancelled"])
        }
    }

    @Test func everyPendingCallFailsAtOnceWhenTheConnectionEnds() async throws {
        try await withHangGuard { () async throws in
            let (client, peer) = Self.rawClient()
            defer { client.close() }  // drops the handlers and the peer, which hold each other
            let closes = Collector<MessengerError>()
            client.onClose { closes.append($0) }
            let channels = ["a", "b/c", "shared_preference_app_group"]
            let calls = channels.map { channel in
                Task { () async -> (String, (any Error)?) in
                    do {
                        _ = try await client.send(onChannel: channel, message: [0])
                        return (channel, nil)
                    } catch {
                        return (channel, error)
                    }
                }
            }
            await peer.waitForFrames { Self.requests(in: $0).count == channels.count }
            peer.sendEnd()
            for call in calls {
                let (channel, error) = await call.value
                let failure = try #require(error as? MessengerError)
                #expect(failure.code == .connectionClosed)
                #expect(failure.channel == channel)
                #expect(failure.description.contains("'\(channel)'"))
            }
            #expect(closes.all.map(\.code) == [.connectionClosed])
            // Later sends fail at once too, naming their channel; onClose runs at once.
            await #expect(throws: MessengerError.self) { try await client.send(onChannel: "late", message: nil) }
            client.onClose { closes.append($0) }
            #expect(closes.count == 2)
        }
    }

    @Test func peerGoodbyeStopsNewRequestsButOwedRepliesStillArrive() async throws {
        try await withHangGuard { () async throws in
            let (client, peer) = Self.rawClient()
            defer { client.close() }  // drops the handlers and the peer, which hold each other
            let call = Task { try await client.send(onChannel: "owed", message: [1]) }
            await peer.waitForFrames { Self.requests(in: $0).count == 1 }
            peer.send(.goodbye(code: .shuttingDown, reason: "host is ending"))
            await #expect { try await client.send(onChannel: "new", message: nil) } throws: { error in
                let error = error as? MessengerError
                return error?.code == .connectionClosed && error?.channel == "new"
            }
            #expect { try client.post(onChannel: "new", message: nil) } throws: { _ in true }
            #expect(!peer.isClosed)
            peer.send(.reply(id: try Self.requests(peer)[0].id, result: .bytes([7])))
            #expect(try await call.value == [7])
            // Nothing is owed either way any more: the client closes without a GOODBYE of its own.
            await peer.waitUntilClosed()
            #expect(try peer.receivedFrames().allSatisfy { $0.kind != .goodbye })
            #expect(client.closeError?.code == .connectionClosed)
        }
    }

    @Test func closeSendsGoodbyeAndWaitsForOwedReplies() async throws {
        try await withHangGuard { () async throws in
            let (client, host) = InMemoryMessenger.makePair()
            let gate = Gate()
            let arrived = Gate()
            host.setMessageHandler(onChannel: "owed") { _ in
                arrived.open()
                await gate.wait()
                return [42]
            }
            let hostClosed = Collector<MessengerError>()
            host.onClose { hostClosed.append($0) }
            let clientClosed = Collector<MessengerError>()
            client.onClose { clientClosed.append($0) }
            let call = Task { try await client.send(onChannel: "owed", message: nil) }
            await arrived.wait()
            host.close(code: .shuttingDown, reason: "bye")
            #expect(host.closeError == nil)  // still owes a reply
            await #expect(throws: MessengerError.self) { try await host.send(onChannel: "x", message: nil) }
            await #expect(throws: MessengerError.self) { try await client.send(onChannel: "x", message: nil) }
            gate.open()
            #expect(try await call.value == [42])
            try await clientClosed.first(1)
            #expect(hostClosed.all.map(\.code) == [.connectionClosed])
            #expect(client.closeError?.message.contains("shuttingDown") == true)
        }
    }

    @Test func requestsAfterRefuseNewRequestsGetStatusTwo() async throws {
        try await withHangGuard { () async throws in
            let (client, host) = InMemoryMessenger.makePair()
            defer { client.close() }
            host.setMessageHandler(onChannel: "c") { _ in [1] }
            host.refuseNewRequests(reason: "host is shutting down")
            await #expect(throws: MessengerError(.handlerFailed, "host is shutting down", channel: "c")) {
                try await client.send(onChannel: "c", message: nil)
            }
        }
    }

    @Test func forbiddenGoodbyeAsTheFirstFrame() async throws {
        try await withHangGuard { () async throws in
            let (client, peer) = InMemoryMessenger.makeRawPeer(role: .client)
            defer { client.close() }  // drops the handlers and the peer, which hold each other
            let call = Task { try await client.send(onChannel: "c", message: nil) }
            await peer.waitForFrames { Self.requests(in: $0).count == 1 }
            peer.send(.goodbye(code: .forbidden, reason: "uid 1000 is not allowed"))
            peer.sendEnd()
            await #expect { try await client.waitForPeerHello() } throws: {
                ($0 as? MessengerError)?.code == .forbidden
            }
            await #expect { try await call.value } throws: { error in
                let error = error as? MessengerError
                return error?.code == .connectionClosed && error?.message.contains("refused") == true
            }
            #expect(client.closeError?.code == .forbidden)
        }
    }

    /// The host cut this side for a frame left unfinished (wire protocol §4.10 rule 9): the
    /// session's error says so, with the host's reason, under its own code.
    @Test func frameTimeoutGoodbyeIsReportedWithItsReason() async throws {
        try await withHangGuard { () async throws in
            let (client, peer) = InMemoryMessenger.makeRawPeer(role: .client)
            defer { client.close() }  // drops the handlers and the peer, which hold each other
            try peer.send(FrameEncoder.encode(.hello(Frame.Hello(role: .host, peerName: "raw"))))
            _ = try await client.waitForPeerHello()
            let ended = Inbox<MessengerError>()
            client.onClose { ended.put($0) }
            peer.send(.goodbye(code: .frameTimeout, reason: "a frame was not finished in time"))
            peer.sendEnd()
            let error = await ended.next()
            #expect(error.code == .frameTimeout)
            #expect(
                error.message == "the peer closed the session: a frame from this side did not arrive in full in time: "
                    + "a frame was not finished in time")
            #expect(GoodbyeCode.frameTimeout.description == "frameTimeout")
        }
    }

    /// A handler that ends the session (as the extension host's `exit` does) while later requests
    /// sit in the same read: those are answered first, then the GOODBYE goes out.
    @Test func aCloseDuringOneReadWaitsForTheRestOfThatRead() async throws {
        try await withHangGuard { () async throws in
            let (host, peer) = InMemoryMessenger.makeRawPeer(role: .host)
            defer { host.close() }  // drops the handlers and the peer, which hold each other
            host.setMessageHandler(onChannel: "end") { _ in
                host.close(code: .shuttingDown, reason: "ending")
                return [1]
            }
            host.setMessageHandler(onChannel: "later") { _ in [2] }
            try peer.send(
                FrameEncoder.encode(.hello(Frame.Hello(role: .client, peerName: "raw")))
                    + FrameEncoder.encode(.request(id: 1, channel: "end", payload: []))
                    + FrameEncoder.encode(.request(id: 2, channel: "later", payload: [])))
            await peer.waitForFrames { $0.contains { if case .goodbye = $0 { true } else { false } } }
            #expect(
                try Array(peer.receivedFrames().dropFirst()) == [
                    .reply(id: 1, result: .bytes([1])),
                    .reply(id: 2, result: .bytes([2])),
                    .goodbye(code: .shuttingDown, reason: "ending"),
                ])
        }
    }

    @Test func handlersAreCancelledWhenTheConnectionEnds() async throws {
        try await withHangGuard { () async throws in
            let (client, host) = InMemoryMessenger.makePair()
            let started = Gate()
            let outcome = Collector<Bool>()
            host.setMessageHandler(onChannel: "slow") { _ in
                started.open()
                try? await untilCancelled()
                outcome.append(Task.isCancelled)
                return nil
            }
            let call = Task { try await client.send(onChannel: "slow", message: nil) }
            await started.wait()
            client.close()
            await #expect(throws: MessengerError.self) { try await call.value }
            try await outcome.first(1)
            #expect(outcome.all == [true])
            #expect(host.closeError != nil)
        }
    }

    @Test func helloAlwaysGoesFirst() throws {
        let (client, peer) = InMemoryMessenger.makeRawPeer(role: .client)
        defer { client.close() }  // drops the handlers and the peer, which hold each other
        try client.post(onChannel: "early", message: [1])  // before the peer's HELLO: allowed
        #expect(
            try peer.receivedFrames() == [
                .hello(.init(role: .client, peerName: "in-memory raw-peer test")),
                .message(channel: "early", payload: [1]),
            ])
    }

    @Test func waitForPeerHelloReturnsTheHello() async throws {
        try await withHangGuard { () async throws in
            let (client, peer) = InMemoryMessenger.makeRawPeer(role: .client)
            defer { client.close() }  // drops the handlers and the peer, which hold each other
            // Runs until it waits: the HELLO below finds a waiter, whatever the scheduling.
            let waiting = Task.immediate { try await client.waitForPeerHello() }
            peer.send(Self.hostHello)
            #expect(try await waiting.value.peerName == "raw host")
            #expect(try await client.waitForPeerHello().role == .host)
            #expect(try peer.receivedFrames() == [.hello(.init(role: .client, peerName: "in-memory raw-peer test"))])
        }
    }

    @Test func pingGetsAPongAndAnIncomingPingIsAnswered() async throws {
        try await withHangGuard { () async throws in
            let (client, peer) = Self.rawClient()
            defer { client.close() }  // drops the handlers and the peer, which hold each other
            peer.send(.ping(token: 0xDEAD_BEEF))
            #expect(try peer.receivedFrames().last == .pong(token: 0xDEAD_BEEF))
            let ping = Task { try await client.ping() }
            await peer.waitForFrames { $0.last?.kind == .ping }
            guard case .ping(let token)? = try peer.receivedFrames().last else { return }
            peer.send(.pong(token: token &+ 1))  // not ours: ignored
            peer.send(.pong(token: token))
            try await ping.value
        }
    }
}

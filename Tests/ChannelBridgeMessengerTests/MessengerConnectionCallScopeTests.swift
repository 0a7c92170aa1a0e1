@_spi(Benchmarks) import ChannelBridgeMessenger
import ChannelBridgeTestSupport
import ChannelBridgeTesting
import Testing

/// `withCallScope`: one cancellation handler for a task's calls, with the semantics of a handler
/// per call.
@Suite struct MessengerConnectionCallScopeTests {
    static let hostHello = Frame.hello(Frame.Hello(role: .host, peerName: "raw host"))

    static func rawClient() -> (MessengerConnection, InMemoryMessenger.RawPeer) {
        let (client, peer) = InMemoryMessenger.makeRawPeer(role: .client)
        peer.send(hostHello)
        return (client, peer)
    }

    static func requestIDs(in frames: [Frame]) -> [UInt32] {
        frames.compactMap { frame in
            if case .request(let id, _, _) = frame { return id }
            return nil
        }
    }

    static func cancelIDs(in frames: [Frame]) -> [UInt32] {
        frames.compactMap { frame in
            if case .cancel(let id) = frame { return id }
            return nil
        }
    }

    @Test func callsInAScopeAreAnsweredAndCancellingItsTaskWithdrawsTheWaitingOneWithCancel() async throws {
        try await withHangGuard { () async throws in
            let (client, peer) = Self.rawClient()
            defer { client.close() }
            let task = Task {
                try await client.withCallScope {
                    let first = try await client.send(onChannel: "c", message: [1])
                    #expect(first == [9])
                    return try await client.send(onChannel: "c", message: [2])
                }
            }
            let firstID = await peer.waitForFrames { Self.requestIDs(in: $0).count == 1 }.compactMap {
                frame -> UInt32? in
                if case .request(let id, _, _) = frame { return id }
                return nil
            }[0]
            peer.send(.reply(id: firstID, result: .bytes([9])))
            let frames = await peer.waitForFrames { Self.requestIDs(in: $0).count == 2 }
            let secondID = Self.requestIDs(in: frames)[1]
            task.cancel()
            await #expect(throws: CancellationError.self) { try await task.value }
            let after = await peer.waitForFrames { !Self.cancelIDs(in: $0).isEmpty }
            #expect(Self.cancelIDs(in: after) == [secondID])
        }
    }

    @Test func aCallAfterTheScopesTaskWasCancelledIsRefusedUnsent() async throws {
        try await withHangGuard { () async throws in
            let (client, peer) = Self.rawClient()
            defer { client.close() }
            let gate = Inbox<Void>()
            let task = Task {
                try await client.withCallScope { () async throws -> [UInt8]? in
                    await gate.next()
                    return try await client.send(onChannel: "c", message: [1])
                }
            }
            task.cancel()
            gate.put(())
            await #expect(throws: CancellationError.self) { try await task.value }
            #expect(Self.requestIDs(in: try peer.receivedFrames()).isEmpty)
        }
    }

    /// A child task inherits nothing from the scope: cancelling the child alone withdraws its call.
    @Test func aChildTaskInTheScopeHasItsOwnHandler() async throws {
        try await withHangGuard { () async throws in
            let (client, peer) = Self.rawClient()
            defer { client.close() }
            let outcome = try await client.withCallScope { () async throws -> Bool in
                let child = Task { try await client.send(onChannel: "child", message: nil) }
                let frames = await peer.waitForFrames { Self.requestIDs(in: $0).count == 1 }
                let id = Self.requestIDs(in: frames)[0]
                child.cancel()
                let cancelled: Bool
                do {
                    _ = try await child.value
                    cancelled = false
                } catch {
                    cancelled = error is CancellationError
                }
                let after = await peer.waitForFrames { !Self.cancelIDs(in: $0).isEmpty }
                #expect(Self.cancelIDs(in: after) == [id])
                return cancelled
            }
            #expect(outcome)
        }
    }
    /// Many tasks with a scope open at once (a pipeline's callers): each scope covers its own
    /// task's calls only, found by one lookup among all of them; a task without one among them
    /// keeps a handler of its own.
    @Test func scopesOfManyTasksEachCoverOnlyTheirOwnTasksCalls() async throws {
        try await withHangGuard { () async throws in
            let (client, peer) = Self.rawClient()
            defer { client.close() }
            let names = (0..<5).map { "c\($0)" }
            let tasks = names.map { name in
                Task { try await client.withCallScope { try await client.send(onChannel: name, message: [1]) } }
            }
            let bare = Task { try await client.send(onChannel: "bare", message: [1]) }
            let frames = await peer.waitForFrames { Self.requestIDs(in: $0).count == names.count + 1 }
            var idOf: [String: UInt32] = [:]
            for frame in frames {
                if case .request(let id, let channel, _) = frame { idOf[channel] = id }
            }
            tasks[2].cancel()
            await #expect(throws: CancellationError.self) { try await tasks[2].value }
            bare.cancel()
            await #expect(throws: CancellationError.self) { try await bare.value }
            let after = await peer.waitForFrames { Self.cancelIDs(in: $0).count == 2 }
            #expect(Self.cancelIDs(in: after) == [idOf["c2"]!, idOf["bare"]!])
            for (index, name) in names.enumerated() where index != 2 {
                peer.send(.reply(id: idOf[name]!, result: .bytes([UInt8(index)])))
                #expect(try await tasks[index].value == [UInt8(index)])
            }
            #expect(Self.cancelIDs(in: try peer.receivedFrames()).count == 2)
        }
    }
}

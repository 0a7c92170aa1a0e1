import ChannelBridgeMessenger
import ChannelBridgeSocket
import ChannelBridgeTestSupport
import Testing

/// The request budget shared by a listener's sessions (wire protocol §4.10): the order in which
/// requests start is observed through the handlers, never through time.
@Suite struct RequestBudgetTests {
    static let size = 80_000

    /// A listener whose sessions share `budget`, with "work": records the first byte of the
    /// request, waits for that byte's gate, and answers with the byte.
    static func serve(
        _ budget: RequestBudget, started: Collector<UInt8>, gates: [Gate],
        accepted: Collector<SocketConnection>? = nil
    ) throws -> (SocketListener, TestDirectory) {
        var options = SocketListener.Options()
        options.connection.requestBudget = budget
        return try SocketConnectionTests.serve(options: options) { connection in
            accepted?.append(connection)
            connection.messenger.setMessageHandler(onChannel: "work") { message in
                let tag = message![0]
                started.append(tag)
                await gates[Int(tag)].wait()
                return [tag]
            }
        }
    }

    /// `size` bytes starting with `tag`. Built in place, not by concatenation: a debug build
    /// concatenates element by element, which for megabytes would hold a thread of the test pool.
    static func request(_ tag: UInt8, size: Int = size) -> [UInt8] {
        var bytes = [UInt8](repeating: 0xAB, count: size)
        bytes[0] = tag
        return bytes
    }

    @Test func aRequestThatDoesNotFitWaitsForTheOneInFlightAcrossSessions() async throws {
        try await withHangGuard(seconds: 30) { () async throws in
            let budget = RequestBudget(capacity: 3 << 20)
            let started = Collector<UInt8>(), accepted = Collector<SocketConnection>()
            let gates = (0..<3).map { _ in Gate() }
            let (listener, directory) = try Self.serve(budget, started: started, gates: gates, accepted: accepted)
            defer { directory.remove() }
            let first = try await SocketConnection.connect(to: listener.path, options: .forTests)
            let second = try await SocketConnection.connect(to: listener.path, options: .forTests)
            async let one = first.messenger.send(onChannel: "work", message: Self.request(1))
            #expect(try await started.first(1) == [1])
            #expect(budget.charged == RequestBudget.charge(forRequestOf: Self.size))
            async let two = second.messenger.send(onChannel: "work", message: Self.request(2))
            // The second session holds its request back, unread, for the budget.
            let hosts = try await accepted.first(2)
            await hosts[1].messenger.waitUntilInputHeld()
            #expect(started.all == [1])
            gates[1].open()
            #expect(try await one == [1])
            #expect(try await started.first(2) == [1, 2])
            // Admitted once the first was answered: only the second is charged now.
            #expect(budget.charged == RequestBudget.charge(forRequestOf: Self.size))
            gates[2].open()
            #expect(try await two == [2])
            first.close()
            second.close()
            listener.close()
            await listener.waitUntilClosed()
        }
    }

    /// A request that does not fit waits with its body unread: what the host holds for it is a
    /// read's worth of bytes at most, not its 4 MiB, until the budget lets it in.
    @Test func aRequestThatDoesNotFitWaitsWithItsBodyUnread() async throws {
        try await withHangGuard(seconds: 30) { () async throws in
            let budget = RequestBudget(capacity: 3 << 20)
            let started = Collector<UInt8>(), accepted = Collector<SocketConnection>()
            let gates = (0..<3).map { _ in Gate() }
            let (listener, directory) = try Self.serve(budget, started: started, gates: gates, accepted: accepted)
            defer { directory.remove() }
            let first = try await SocketConnection.connect(to: listener.path, options: .forTests)
            let second = try await SocketConnection.connect(to: listener.path, options: .forTests)
            async let one = first.messenger.send(onChannel: "work", message: Self.request(1))
            #expect(try await started.first(1) == [1])
            let big = 4 << 20
            async let two = second.messenger.send(onChannel: "work", message: Self.request(2, size: big))
            let hosts = try await accepted.first(2)
            await hosts[1].messenger.waitUntilInputHeld()
            #expect(hosts[1].messenger.receivedUndeliveredByteCount < 2 << 20)
            #expect(started.all == [1])
            gates[1].open()
            #expect(try await one == [1])
            #expect(try await started.first(2) == [1, 2])
            #expect(budget.charged >= big)
            gates[2].open()
            #expect(try await two == [2])
            first.close()
            second.close()
            listener.close()
            await listener.waitUntilClosed()
        }
    }

    /// A request charged when its frame began and then held (for a handler slot) keeps its charge
    /// and is charged once.
    @Test func aRequestChargedAtItsStartAndHeldForASlotIsChargedOnce() async throws {
        try await withHangGuard(seconds: 30) { () async throws in
            let budget = RequestBudget(capacity: 64 << 20)
            let started = Collector<UInt8>(), accepted = Collector<SocketConnection>()
            let gates = (0..<3).map { _ in Gate() }
            var options = SocketListener.Options()
            options.connection.requestBudget = budget
            options.connection.maxHandlersInFlight = 1
            let (listener, directory) = try SocketConnectionTests.serve(options: options) { connection in
                accepted.append(connection)
                connection.messenger.setMessageHandler(onChannel: "work") { message in
                    let tag = message![0]
                    started.append(tag)
                    await gates[Int(tag)].wait()
                    return [tag]
                }
            }
            defer { directory.remove() }
            let client = try await SocketConnection.connect(to: listener.path, options: .forTests)
            async let one = client.messenger.send(onChannel: "work", message: Self.request(1))
            #expect(try await started.first(1) == [1])
            async let two = client.messenger.send(onChannel: "work", message: Self.request(2, size: 4 << 20))
            try await accepted.first(1)[0].messenger.waitUntilInputHeld()
            gates[1].open()
            #expect(try await one == [1])
            #expect(try await started.first(2) == [1, 2])
            #expect(budget.charged < 2 * (4 << 20))
            gates[2].open()
            #expect(try await two == [2])
            client.close()
            listener.close()
            await listener.waitUntilClosed()
        }
    }

    @Test func aRequestLargerThanTheWholeBudgetIsServedAlone() async throws {
        try await withHangGuard(seconds: 30) { () async throws in
            let budget = RequestBudget(capacity: 1 << 20)
            let started = Collector<UInt8>(), accepted = Collector<SocketConnection>()
            let gates = (0..<3).map { _ in Gate() }
            let (listener, directory) = try Self.serve(budget, started: started, gates: gates, accepted: accepted)
            defer { directory.remove() }
            let client = try await SocketConnection.connect(to: listener.path, options: .forTests)
            async let one = client.messenger.send(onChannel: "work", message: Self.request(1))
            #expect(try await started.first(1) == [1])
            // A small charged request waits for the big one; it is not starved for ever.
            async let two = client.messenger.send(onChannel: "work", message: Self.request(2, size: 5_000))
            try await accepted.first(1)[0].messenger.waitUntilInputHeld()
            #expect(started.all == [1])
            gates[1].open()
            gates[2].open()
            #expect(try await one == [1])
            #expect(try await two == [2])
            #expect(started.all == [1, 2])
            client.close()
            listener.close()
            await listener.waitUntilClosed()
        }
    }

    @Test func aReplyToTheHostsOwnCallPassesARequestWaitingForTheBudget() async throws {
        try await withHangGuard(seconds: 30) { () async throws in
            let budget = RequestBudget(capacity: 3 << 20)
            let started = Collector<UInt8>(), answered = Collector<[UInt8]>()
            let accepted = Collector<SocketConnection>()
            let gate = Gate()
            var options = SocketListener.Options()
            options.connection.requestBudget = budget
            let (listener, directory) = try SocketConnectionTests.serve(options: options) { connection in
                accepted.append(connection)
                let messenger = connection.messenger
                connection.messenger.setMessageHandler(onChannel: "work") { message in
                    let tag = message![0]
                    started.append(tag)
                    guard tag == 1 else { return [tag] }
                    await gate.wait()
                    // A call back to the client, whose reply arrives behind request 2, which
                    // waits for the budget that this handler holds.
                    let reply = try await messenger.send(onChannel: "ask", message: [9])
                    answered.append(reply ?? [])
                    return [tag]
                }
            }
            defer { directory.remove() }
            let client = try await SocketConnection.connect(to: listener.path, options: .forTests) {
                $0.messenger.setMessageHandler(onChannel: "ask") { _ in [42] }
            }
            async let one = client.messenger.send(onChannel: "work", message: Self.request(1))
            #expect(try await started.first(1) == [1])
            async let two = client.messenger.send(onChannel: "work", message: Self.request(2))
            try await accepted.first(1)[0].messenger.waitUntilInputHeld()
            gate.open()
            #expect(try await answered.first(1) == [[42]])
            #expect(try await one == [1])
            #expect(try await two == [2])
            #expect(started.all == [1, 2])
            client.close()
            listener.close()
            await listener.waitUntilClosed()
        }
    }

    @Test func theBudgetIsReleasedWhenASessionEnds() async throws {
        try await withHangGuard(seconds: 30) { () async throws in
            let budget = RequestBudget(capacity: 3 << 20)
            let started = Collector<UInt8>(), accepted = Collector<SocketConnection>()
            let gates = (0..<3).map { _ in Gate() }
            let (listener, directory) = try Self.serve(budget, started: started, gates: gates, accepted: accepted)
            defer { directory.remove() }
            let first = try await SocketConnection.connect(to: listener.path, options: .forTests)
            let second = try await SocketConnection.connect(to: listener.path, options: .forTests)
            let abandoned = Task { try? await first.messenger.send(onChannel: "work", message: Self.request(1)) }
            #expect(try await started.first(1) == [1])
            async let two = second.messenger.send(onChannel: "work", message: Self.request(2))
            let hosts = try await accepted.first(2)
            await hosts[1].messenger.waitUntilInputHeld()
            #expect(started.all == [1])
            // The first client goes away with its request unanswered (its handler never returns
            // on its own): its session's end gives the budget back, and the second starts.
            first.close()
            #expect(try await started.first(2) == [1, 2])
            gates[2].open()
            #expect(try await two == [2])
            gates[1].open()
            _ = await abandoned.value
            second.close()
            listener.close()
            await listener.waitUntilClosed()
        }
    }

    /// A request charged when its frame began, whose peer never finishes it, gives its charge
    /// back when the session ends: a request as large as the whole budget is served next.
    @Test func aRequestBegunAndNeverFinishedGivesItsChargeBack() async throws {
        try await withHangGuard(seconds: 30) { () async throws in
            let budget = RequestBudget(capacity: 4 << 20)
            let started = Collector<UInt8>()
            let gates = (0..<2).map { _ in Gate() }
            gates[1].open()
            var options = FrameDeadlineTests.options(frameTimeout: .milliseconds(200))
            options.connection.requestBudget = budget
            let directory = try TestDirectory()
            defer { directory.remove() }
            let listener = try SocketListener(path: directory.path + "/h.sock", options: options) { connection in
                connection.messenger.setMessageHandler(onChannel: "work") { message in
                    let tag = message![0]
                    started.append(tag)
                    await gates[Int(tag)].wait()
                    return [tag]
                }
            }
            let peer = try RawPeer(path: listener.path)
            defer { peer.close() }
            try peer.write([RawPeer.hello()])
            let begun = try FrameEncoder.encode(
                .request(id: 1, channel: "work", payload: Self.request(0, size: 3 << 20)))
            peer.write(Array(begun.prefix(64 << 10)))
            // The frame deadline ends the session; the request it had begun was charged by then.
            let received = try await onThreadThrowing { try peer.readFrames(until: FrameDeadlineTests.isFrameTimeout) }
                .get()
            #expect(received.last.map(FrameDeadlineTests.isFrameTimeout) == true)
            let client = try await SocketConnection.connect(to: listener.path, options: .forTests)
            #expect(try await client.messenger.send(onChannel: "work", message: Self.request(1, size: 4 << 20)) == [1])
            #expect(started.all == [1])
            client.close()
            listener.close()
            await listener.waitUntilClosed()
        }
    }

    @Test func smallRequestsAreNotCharged() {
        #expect(RequestBudget.charge(forRequestOf: 4_095) == 0)
        #expect(RequestBudget.charge(forRequestOf: 4_096) == 2 << 20)
        #expect(RequestBudget.charge(forRequestOf: 3 << 20) == 3 << 20)
    }
}

@testable import ChannelBridgeMessenger
import ChannelBridgeTestSupport
import Dispatch
import Foundation
import Testing

/// The connection's lock-free protocols, raced from two threads many times over (ThreadSanitizer
/// checks the accesses when the suite runs under it):
/// - the batch flag and `closeDeferred` (a Dekker pair): a close asked for from another thread
///   while one read's frames are delivered waits for the end of that batch, so the requests of a
///   batch are answered all before the GOODBYE or none;
/// - the in-place route's epoch: a handler installed on another thread, published to the reader
///   by a semaphore, decides the next request although that request skips the state lock.
@Suite struct MessengerConnectionLockFreeRaceTests {
    typealias FrameLog = MessengerConnectionInPlaceRouteTests.FrameLog
    typealias Marker = MessengerConnectionInPlaceRouteTests.Marker

    static let rounds = 300

    /// Both tests block their threads on semaphores: they run on threads of their own, never on
    /// the cooperative pool's.
    @Test func aCloseFromAnotherThreadNeverLandsInsideABatch() async throws {
        let outcome = try await onThread { Result { try Self.closeRaces() } }.get()
        #expect(outcome.withoutGoodbye.isEmpty, "rounds with no GOODBYE: \(outcome.withoutGoodbye)")
        #expect(
            outcome.mixed.isEmpty,
            "rounds where the GOODBYE landed inside a batch, by replies before it: \(outcome.mixed)")
    }

    @Test func aHandlerInstalledOnAnotherThreadDecidesTheNextRequestOnTheRoute() async throws {
        let wrong = try await onThread { Result { try Self.handlerRaces() } }.get()
        #expect(wrong.isEmpty, "rounds answered by an earlier handler: \(wrong)")
    }

    /// Each round, the first request's handler wakes the closing thread, so its `close()` runs
    /// while the rest of the batch is being delivered.
    static func closeRaces() throws -> (withoutGoodbye: [Int], mixed: [Int]) {
        let requests = 64
        var mixed: [Int] = []
        var withoutGoodbye: [Int] = []
        for round in 0..<Self.rounds {
            let transport = FrameLog()
            let connection = MessengerConnection(role: .host, transport: transport)
            connection.receive(try FrameEncoder.encode(.hello(Frame.Hello(role: .client, peerName: "raw"))))
            let start = DispatchSemaphore(value: 0)
            let closed = DispatchSemaphore(value: 0)
            connection.installHandler(onChannel: "c") { message, reply in
                if message.bytes?.first == 1 { start.signal() }
                if reply.isEmpty { reply = [0] }
                reply[0] = 1
                return .written(count: 1)
            }
            var batch: [UInt8] = []
            for id in 1...UInt32(requests) {
                batch += try FrameEncoder.encode(.request(id: id, channel: "c", payload: [id == 1 ? 1 : 0]))
            }
            Thread.detachNewThread {
                start.wait()
                connection.close()
                closed.signal()
            }
            connection.receive(batch)
            closed.wait()
            var answered = 0
            var sawGoodbye = false
            for frame in transport.frames.all {
                switch frame {
                case .goodbye: sawGoodbye = true
                case .reply(_, .bytes([1])) where !sawGoodbye: answered += 1
                default: break
                }
            }
            if !sawGoodbye { withoutGoodbye.append(round) }
            if answered != requests { mixed.append(answered) }
        }
        return (withoutGoodbye, mixed)
    }

    static func handlerRaces() throws -> [Int] {
        let transport = FrameLog()
        let connection = MessengerConnection(role: .host, transport: transport)
        connection.receive(try FrameEncoder.encode(.hello(Frame.Hello(role: .client, peerName: "raw"))))
        defer { connection.close() }
        let marker = Marker()
        connection.installHandler(onChannel: "c", marker.handler(0))
        let installed = DispatchSemaphore(value: 0)
        let delivered = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            for round in 1...Self.rounds {
                connection.installHandler(onChannel: "c", marker.handler(UInt8(truncatingIfNeeded: round)))
                installed.signal()
                delivered.wait()
            }
        }
        var wrong: [Int] = []
        for round in 1...Self.rounds {
            installed.wait()
            // Twice: the first may take the lock, the second takes the remembered route.
            connection.receive(try FrameEncoder.encode(.request(id: 1, channel: "c", payload: [0])))
            connection.receive(try FrameEncoder.encode(.request(id: 2, channel: "c", payload: [0])))
            let calls = marker.calls.all.suffix(2)
            if Array(calls) != [UInt8(truncatingIfNeeded: round), UInt8(truncatingIfNeeded: round)] {
                wrong.append(round)
            }
            delivered.signal()
        }
        return wrong
    }
}

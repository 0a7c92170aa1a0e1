@testable import ChannelBridgeMessenger
import ChannelBridgeTestSupport
import ChannelBridgeTesting
import Testing

/// A `RequestGate` closes the connections that share it from inside their request path: a request
/// decided after `close()` returned is refused with REPLY status 2 carrying the gate's reason,
/// whatever kind of handler its channel has and even when the channel was being answered in place
/// without the state lock; admitted requests still reach their handler.
@Suite struct RequestGateTests {
    typealias FrameLog = MessengerConnectionInPlaceRouteTests.FrameLog
    typealias Marker = MessengerConnectionInPlaceRouteTests.Marker

    static let reason = "host is shutting down"

    /// A gate that admits requests on "control" whose payload starts with 1.
    static func gate() -> RequestGate {
        RequestGate(reason: reason) { channel, payload in channel == "control" && payload?.first == 1 }
    }

    static func open(_ gates: RequestGate...) throws -> [(MessengerConnection, FrameLog)] {
        try gates.map { gate in
            let transport = FrameLog()
            var options = MessengerConnection.Options()
            options.requestGate = gate
            let connection = MessengerConnection(role: .host, options: options, transport: transport)
            connection.receive(try FrameEncoder.encode(.hello(Frame.Hello(role: .client, peerName: "raw"))))
            return (connection, transport)
        }
    }

    static func request(_ id: UInt32, on channel: String, payload: [UInt8]? = [9]) throws -> [UInt8] {
        try FrameEncoder.encode(.request(id: id, channel: channel, payload: payload))
    }

    /// Two connections share one gate. A channel answered in place (its route remembered, so
    /// that the next request would skip the state lock) is refused on both as soon as the gate is
    /// closed; a request the gate admits still reaches its handler; a channel with no handler
    /// still gets the null reply.
    @Test func closingRefusesTheNextRequestOnEveryConnectionSharingTheGate() throws {
        let gate = Self.gate()
        let connections = try Self.open(gate, gate)
        let marker = Marker()
        for (connection, _) in connections {
            connection.installHandler(onChannel: "c", marker.handler(1))
            connection.installHandler(onChannel: "control", marker.handler(2))
            connection.receive(try Self.request(1, on: "c"))
            connection.receive(try Self.request(2, on: "c"))  // the remembered route
        }
        #expect(marker.calls.all == [1, 1, 1, 1])

        gate.close()
        for (connection, transport) in connections {
            connection.receive(try Self.request(3, on: "c"))
            connection.receive(try Self.request(4, on: "control", payload: [1]))  // admitted
            connection.receive(try Self.request(5, on: "control", payload: [0]))
            connection.receive(try Self.request(6, on: "control", payload: nil))
            connection.receive(try Self.request(7, on: "unhandled"))
            #expect(
                transport.replies == [
                    .reply(id: 1, result: .bytes([1])), .reply(id: 2, result: .bytes([1])),
                    .reply(id: 3, result: .failure(Self.reason)),
                    .reply(id: 4, result: .bytes([2])),
                    .reply(id: 5, result: .failure(Self.reason)),
                    .reply(id: 6, result: .failure(Self.reason)),
                    .reply(id: 7, result: .null),
                ])
        }
        #expect(marker.calls.all == [1, 1, 1, 1, 2, 2])
        #expect(gate.isClosed)
    }

    /// Handlers that run in a task, and immediate and synchronous ones, are refused the same way,
    /// and a one-way MESSAGE is dropped unless admitted; a connection without the gate is not
    /// affected by it.
    @Test func everyKindOfHandlerIsRefusedAndMessagesAreDropped() async throws {
        try await withHangGuard { () async throws in
            let gate = Self.gate()
            let (connection, transport) = try Self.open(gate)[0]
            let ungated = FrameLog()
            let other = MessengerConnection(role: .host, transport: ungated)
            other.receive(try FrameEncoder.encode(.hello(Frame.Hello(role: .client, peerName: "raw"))))
            let reached = Collector<String>(name: "handlers reached")
            for messenger in [connection, other] {
                messenger.setMessageHandler(onChannel: "plain") { _ in
                    reached.append("plain"); return [1]
                }
                messenger.installAnsweringNow(onChannel: "sync") { _ in
                    reached.append("sync"); return nil
                }
                messenger.installHandler(onChannel: "immediate", mayAnswerLater: true) { _, _ in
                    reached.append("immediate"); return .null
                }
                messenger.installAnsweringNow(onChannel: "control") { _ in
                    reached.append("control"); return nil
                }
            }
            gate.close()
            connection.receive(try Self.request(1, on: "plain"))
            connection.receive(try Self.request(2, on: "sync"))
            connection.receive(try Self.request(3, on: "immediate"))
            connection.receive(try FrameEncoder.encode(.message(channel: "sync", payload: [0])))
            connection.receive(try FrameEncoder.encode(.message(channel: "control", payload: [1])))
            #expect(transport.replies == [1, 2, 3].map { .reply(id: $0, result: .failure(Self.reason)) })
            #expect(reached.all == ["control"])

            other.receive(try Self.request(1, on: "sync"))
            #expect(ungated.replies == [.reply(id: 1, result: .null)])
            #expect(reached.all == ["control", "sync"])
            connection.close()
            other.close()
        }
    }
}

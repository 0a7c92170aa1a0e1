@testable import ChannelBridgeMessenger
import ChannelBridgePlatform
import ChannelBridgeTestSupport
import Testing

/// What only the thread delivering a connection's received bytes touches (`ReaderState`) sits in a
/// `ThreadConfined` box: each delivery hands it to its thread, and in a debug build another
/// thread's access trips the box's assertion (a process stopped by it:
/// `ReaderConfinementCheckTests` in ChannelBridgeSocketTests).
@Suite struct MessengerConnectionReaderConfinementTests {
    typealias Support = MessengerConnectionInPlaceRouteTests

    #if DEBUG
    static let checks = true
    #else
    static let checks = false
    #endif

    /// Deliveries from two threads in turn, as the in-memory transport makes them: each holds the
    /// state while it delivers, the other does not, and the in-place route the first remembered
    /// answers the second's request.
    @Test func eachDeliveryHandsTheReaderStateToItsThread() async throws {
        let (connection, transport) = try Support.open()
        let marker = Support.Marker()
        connection.installHandler(onChannel: "c", marker.handler(1))
        let (first, second) = await onTwoThreads(
            { [request = try! Support.request(1)] in
                connection.receive(request)
                return connection.reader.isHeldHere
            },
            then: { [request = try! Support.request(2)] in
                let before = connection.reader.isHeldHere
                connection.receive(request)
                return (before, connection.reader.isHeldHere)
            })
        #expect(first)
        #expect(second.0 == !Self.checks)
        #expect(second.1)
        #expect(marker.calls.all == [1, 1])
        #expect(transport.replies.count == 2)
    }
}

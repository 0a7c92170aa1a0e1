public import ChannelBridgeMessenger

/// Two `MessengerConnection`s joined in memory through the real frame encoder and decoder: the
/// quickest way to test channels without sockets.
///
/// ```swift
/// let (client, host) = InMemoryMessenger.makePair()
/// host.setMessageHandler(onChannel: "echo") { $0 }
/// let reply = try await client.send(onChannel: "echo", message: [1, 2, 3])
/// client.close()
/// ```
///
/// No thread is started: bytes are delivered on the thread that writes them, and handlers start
/// there with `Task.immediate`, as they do on a socket's reader thread. Both connections hold
/// each other until one of them closes; close one when done.
public enum InMemoryMessenger {
    /// Returns a client and a host joined to each other. HELLOs have been exchanged.
    public static func makePair(
        client clientOptions: MessengerConnection.Options = .init(name: "in-memory client"),
        host hostOptions: MessengerConnection.Options = .init(name: "in-memory host")
    ) -> (client: MessengerConnection, host: MessengerConnection) {
        makePair(client: clientOptions, host: hostOptions, observingDeliveries: nil)
    }

    /// `makePair`, with `observe` called with the role of the receiving side and the bytes of each
    /// delivery, in delivery order, just before that side decodes them: a wire transcript for tests
    /// of the order frames cross in.
    package static func makePair(
        client clientOptions: MessengerConnection.Options,
        host hostOptions: MessengerConnection.Options,
        observingDeliveries observe: (@Sendable (_ receiver: PeerRole, _ bytes: [UInt8]) -> Void)?
    ) -> (client: MessengerConnection, host: MessengerConnection) {
        let toHost = Transport()
        let toClient = Transport()
        let client = MessengerConnection(role: .client, options: clientOptions, transport: toHost)
        let host = MessengerConnection(role: .host, options: hostOptions, transport: toClient)
        // The end comes after the last delivery, in the same order (see `Transport`).
        toHost.connect(
            to: Sink(
                deliver: {
                    observe?(.host, $0); host.receive($0)
                },
                end: {
                    host.receiveEnd(); host.deliveriesEnded()
                }))
        toClient.connect(
            to: Sink(
                deliver: {
                    observe?(.client, $0); client.receive($0)
                },
                end: {
                    client.receiveEnd(); client.deliveriesEnded()
                }))
        return (client, host)
    }

    /// Returns a connection with `role` whose peer is driven by hand with raw bytes: for tests of
    /// what a connection does with malformed or hand-made frames. The connection's HELLO is the
    /// first thing the peer records.
    public static func makeRawPeer(
        role: PeerRole,
        options: MessengerConnection.Options = .init(name: "in-memory raw-peer test")
    ) -> (connection: MessengerConnection, peer: RawPeer) {
        let transport = Transport()
        let connection = MessengerConnection(role: role, options: options, transport: transport)
        let peer = RawPeer(connection: connection)
        transport.connect(to: Sink(deliver: { peer.record($0) }, end: { peer.recordEnd() }))
        return (connection, peer)
    }
}

import ChannelBridgeMessenger
import ChannelBridgeSocket
import FoundationEssentials

extension HostOptions {
    /// The settings of each client session, in the host's process or in a worker's: the frame
    /// limit, the handler and unsent-byte limits, one request budget for every session this
    /// process serves, the HELLO and frame deadlines, and `gate`, which closes every session to
    /// new requests as the request ends (`ExtensionRequest.sessionGate`).
    func sessionConnectionOptions(gate: RequestGate) -> SocketConnection.Options {
        var connection = SocketConnection.Options()
        connection.name = "extension-host pid \(ProcessInfo.processInfo.processIdentifier)"
        if let maxFrameBytes { connection.maxFrameLength = maxFrameBytes }
        connection.maxHandlersInFlight = maxHandlersInFlight
        connection.requestBudget = RequestBudget(capacity: requestBudget)
        connection.requestGate = gate
        connection.outboundHighWater = outboundHighWater
        connection.outboundLowWater = outboundLowWater
        connection.helloTimeout = helloTimeout
        connection.frameTimeout = frameTimeout
        return connection
    }
}

import ChannelBridgeCodec
public import ChannelBridgeMessenger

/// The live check of `channelbridge conformance --socket`: every vector's bytes are sent as a request on
/// an echo channel, and the reply must be the same bytes. This catches framing and alignment
/// faults in a transport (a dropped or added byte, a length off by one, a payload cut at a
/// buffer boundary) as well as in a codec.
public struct EchoCheck: Sendable {
    /// The channel the extension host serves when started with `--echo`.
    public static let channelName = "channelbridge/echo"

    public var messenger: any BinaryMessenger
    public var channel: String

    public init(messenger: any BinaryMessenger, channel: String = EchoCheck.channelName) {
        self.messenger = messenger
        self.channel = channel
    }

    /// Checks each vector whose bytes are a complete message (everything but `malformed`).
    public func run(_ vectors: [Vector]) async -> [VectorResult] {
        var results: [VectorResult] = []
        for vector in vectors {
            let bytes: [UInt8]
            switch vector.check {
            case .message(_, let hex), .methodCall(_, let hex), .successEnvelope(_, let hex),
                .errorEnvelope(_, _, let hex):
                bytes = hex
            case .malformed:
                continue
            }
            var failures: [String] = []
            do {
                let reply = try await messenger.send(onChannel: channel, message: bytes)
                if reply != bytes {
                    failures.append(
                        "echo on \(channel): sent \(Hex.encode(bytes)), got back \(reply.map(Hex.encode) ?? "a null reply")"
                    )
                }
            } catch {
                failures.append("echo on \(channel): sent \(Hex.encode(bytes)), got error: \(error)")
            }
            results.append(VectorResult(vector: vector, failures: failures))
        }
        return results
    }
}

import ChannelBridgeCodec
import ChannelBridgeConformance

/// Entry point: `JSONMethodCodec.decodeEnvelope`.
enum JSONEnvelopeTarget: FuzzTarget {
    static let name = "json-envelope"

    static func run(_ input: [UInt8]) {
        let codec = JSONMethodCodec()
        let envelope: MethodEnvelope
        do {
            envelope = try codec.decodeEnvelope(input)
        } catch {
            CodecChecks.decodingError(error, input, CodecChecks.jsonCodes.union([.invalidEnvelope]))
            return
        }
        EnvelopeChecks.roundTrip(envelope, codec)
        switch envelope {
        case .success(let value): JSONChecks.laws(value)
        case .error(let error): JSONChecks.laws(error.details)
        }
    }

    static func seeds(_ source: SeedSource) throws -> [[UInt8]] {
        try source.inputs("json-", mode: .envelope)
    }
}

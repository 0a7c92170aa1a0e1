import ChannelBridgeCodec
import ChannelBridgeConformance

/// Entry point: `StandardMethodCodec.decodeEnvelope`.
enum StandardEnvelopeTarget: FuzzTarget {
    static let name = "standard-envelope"

    static func run(_ input: [UInt8]) {
        let codec = StandardMethodCodec()
        let whole = Result { () throws(CodecError) in try codec.decodeEnvelope(input) }
        SplitChecks.envelope(input, whole: whole, codec)
        let envelope: MethodEnvelope
        switch whole {
        case .success(let decoded):
            envelope = decoded
        case .failure(let error):
            CodecChecks.decodingError(error, input, CodecChecks.standardCodes.union([.invalidEnvelope]))
            return
        }
        EnvelopeChecks.roundTrip(envelope, codec)
        switch envelope {
        case .success(let value): CodecChecks.standardLaws(value)
        case .error(let error): CodecChecks.standardLaws(error.details)
        }
    }

    static func seeds(_ source: SeedSource) throws -> [[UInt8]] {
        try source.inputs("standard-", mode: .envelope)
    }
}

enum EnvelopeChecks {
    /// A decoded envelope encodes and decodes back to itself; an error with its stacktrace slot
    /// written (null when it had none) reads the same as without it.
    static func roundTrip(_ envelope: MethodEnvelope, _ codec: some MethodCodec) {
        let encodings: [[UInt8]]
        switch envelope {
        case .success(let value):
            encodings = [
                CodecChecks.must("encoding a success") { () throws(CodecError) in try codec.encodeSuccessEnvelope(value)
                }
            ]
        case .error(let error):
            encodings = [false, true].map { slot in
                CodecChecks.must("encoding an error") { () throws(CodecError) in
                    try codec.encodeErrorEnvelope(error, includingStacktrace: slot || error.stacktrace != nil)
                }
            }
        }
        for bytes in encodings {
            let again = CodecChecks.must("decoding an encoded envelope") { () throws(CodecError) in
                try codec.decodeEnvelope(bytes)
            }
            require(again == envelope, "decode(encode(envelope)) != envelope for \(envelope)")
        }
    }
}

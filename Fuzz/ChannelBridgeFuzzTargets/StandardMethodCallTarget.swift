import ChannelBridgeCodec
import ChannelBridgeConformance

/// Entry point: `StandardMethodCodec.decodeMethodCall`.
enum StandardMethodCallTarget: FuzzTarget {
    static let name = "standard-method-call"

    static func run(_ input: [UInt8]) {
        let codec = StandardMethodCodec()
        let whole = Result { () throws(CodecError) in try codec.decodeMethodCall(input) }
        SplitChecks.call(input, whole: whole, codec)
        let call: MethodCall
        switch whole {
        case .success(let decoded):
            call = decoded
        case .failure(let error):
            CodecChecks.decodingError(error, input, CodecChecks.standardCodes.union([.invalidMethodCall]))
            return
        }
        let bytes = CodecChecks.must("encoding a decoded call") { () throws(CodecError) in try codec.encodeMethodCall(call) }
        require(CodecChecks.must("decoding an encoded call") { () throws(CodecError) in try codec.decodeMethodCall(bytes) } == call,
                "decode(encode(call)) != call for \(call)")
        let segments = CodecChecks.must("segmented call") { () throws(CodecError) in try codec.encodeMethodCallSegments(call) }
        require(segments.first + segments.rest.joined() == bytes, "segments differ from the plain call")
        CodecChecks.standardLaws(call.arguments)
    }

    static func seeds(_ source: SeedSource) throws -> [[UInt8]] {
        try source.inputs("standard-", mode: .methodCall)
    }
}

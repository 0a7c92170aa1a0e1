import ChannelBridgeCodec
import ChannelBridgeConformance

/// Entry point: `JSONMethodCodec.decodeMethodCall`.
enum JSONMethodCallTarget: FuzzTarget {
    static let name = "json-method-call"

    static func run(_ input: [UInt8]) {
        let codec = JSONMethodCodec()
        let call: MethodCall
        do {
            call = try codec.decodeMethodCall(input)
        } catch {
            CodecChecks.decodingError(error, input, CodecChecks.jsonCodes.union([.invalidMethodCall]))
            return
        }
        let bytes = CodecChecks.must("encoding a decoded call") { () throws(CodecError) in
            try codec.encodeMethodCall(call)
        }
        require(
            CodecChecks.must("decoding an encoded call") { () throws(CodecError) in try codec.decodeMethodCall(bytes) }
                == call,
            "decode(encode(call)) != call for \(call)")
        JSONChecks.laws(call.arguments)
    }

    static func seeds(_ source: SeedSource) throws -> [[UInt8]] {
        try source.inputs("json-", mode: .methodCall)
    }
}

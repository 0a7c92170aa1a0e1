import ChannelBridgeBytes
import ChannelBridgeCodec
import ChannelBridgeConformance

/// Entry point: `StandardMethodCodec.decodeMethodCall`.
enum StandardMethodCallTarget: FuzzTarget {
    static let name = "standard-method-call"

    static func run(_ input: [UInt8]) {
        let codec = StandardMethodCodec()
        let whole = Result { () throws(CodecError) in try codec.decodeMethodCall(input) }
        SplitChecks.call(input, whole: whole, codec)
        checkRecentMethod(input, whole: whole, codec)
        let call: MethodCall
        switch whole {
        case .success(let decoded):
            call = decoded
        case .failure(let error):
            CodecChecks.decodingError(error, input, CodecChecks.standardCodes.union([.invalidMethodCall]))
            return
        }
        let bytes = CodecChecks.must("encoding a decoded call") { () throws(CodecError) in
            try codec.encodeMethodCall(call)
        }
        require(
            CodecChecks.must("decoding an encoded call") { () throws(CodecError) in try codec.decodeMethodCall(bytes) }
                == call,
            "decode(encode(call)) != call for \(call)")
        let segments = CodecChecks.must("segmented call") { () throws(CodecError) in
            try codec.encodeMethodCallSegments(call)
        }
        require(Array(segments.parts.joined()) == bytes, "segments differ from the plain call")
        CodecChecks.standardLaws(call.arguments)
    }

    /// A call decoded with a method name remembered (an in-place handler's path) decodes
    /// as the whole call does, error offsets included: with the name its first bytes hold, when
    /// they are one, so that the remembered name is taken and only the arguments are read.
    static func checkRecentMethod(_ input: [UInt8], whole: Result<MethodCall, CodecError>, _ codec: StandardMethodCodec)
    {
        var recent = StandardMethodCodec.RecentMethod()
        if input.count >= 2, input[0] == 7, input[1] < 254, input.count >= 2 + Int(input[1]),
            let name = String(validating: input[2..<2 + Int(input[1])], as: UTF8.self)
        {
            // Remembered the way a decode remembers it: from a call to that method.
            let call = CodecChecks.must("encoding a call to the input's method") { () throws(CodecError) in
                try codec.encodeMethodCall(MethodCall(name))
            }
            _ = call.withUnsafeBytes { raw in try? codec.decodeMethodCall(in: raw, recentMethod: &recent) }
            require(recent.name == name, "decoding a call to \"\(name)\" remembered \"\(recent.name)\"")
        }
        let remembered = recent.name
        let decoded = input.withUnsafeBytes { raw in
            Result { () throws(CodecError) in try codec.decodeMethodCall(in: raw, recentMethod: &recent) }
        }
        require(
            decoded == whole,
            "with \"\(remembered)\" remembered the call decodes to \(decoded), the whole call to \(whole)")
    }

    static func seeds(_ source: SeedSource) throws -> [[UInt8]] {
        try source.inputs("standard-", mode: .methodCall)
    }
}

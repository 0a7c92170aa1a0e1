package import ChannelBridgeCodec

extension Transcript.Channel {
    /// The channel's method codec (method and event channels).
    package var methodCodec: any MethodCodec {
        switch codec {
        case .standard: return StandardMethodCodec()
        case .json: return JSONMethodCodec()
        }
    }

    /// The channel's message codec (message channels and one-way messages).
    package var messageCodec: any MessageCodec<StandardValue> {
        switch codec {
        case .standard: return StandardMessageCodec()
        case .json: return JSONMessageCodec()
        }
    }

    /// The bytes of a reply or an event from its pattern's examples; `nil` for a null reply.
    package func encode(_ reply: Transcript.ReplyPattern) throws(CodecError) -> [UInt8]? {
        switch reply {
        case .notImplemented:
            return nil
        case .success(let value):
            return try methodCodec.encodeSuccessEnvelope(value.example ?? .null)
        case .error(let code, let message, let details):
            var text: String?
            if case .string(let string)? = message.example { text = string }
            return try methodCodec.encodeErrorEnvelope(
                MethodError(code: code, message: text, details: details.example ?? .null),
                includingStacktrace: false)
        }
    }
}

import ChannelBridgeCodec
import ChannelBridgeMessenger

extension MethodChannel {
    /// A synchronous handler with the Standard codec on a connection itself, run where the request
    /// was received (issue 18): the call is decoded from the receive buffer, and the success
    /// envelope is encoded into the connection's reply buffer, with no existential codec call and
    /// no array of its own for the request or the reply. It answers exactly as the general path
    /// does (`decodeCall`, `encodeOutcome`, `tooLarge`), through which error envelopes and the
    /// other rare answers go.
    static func inPlaceHandler(_ handler: @escaping SynchronousHandler, codec: StandardMethodCodec, channel: String,
                               limit: FrameLimit?) -> InPlaceMessageHandler {
        { message, reply in
            let call: MethodCall
            do throws(CodecError) {
                guard let message else { throw CodecError(.invalidMethodCall, "method call payload is null") }
                call = try codec.decodeMethodCall(in: message)
            } catch {
                return .segments(try MalformedCall(error: error, codec: codec).reply())
            }
            let outcome = Result { try handler(call) }
            var segments: MessageSegments?
            if case .success(let value) = outcome {
                switch Result(catching: { () throws(CodecError) in try codec.encodeSuccessEnvelope(value, reusing: &reply) }) {
                case .success(nil):
                    if let limit, reply.count > limit.current - MessengerConnection.replyFrameOverhead {
                        return .segments(try tooLarge(reply.count, of: call, codec: codec, channel: channel, limit: limit))
                    }
                    return .written
                case .success(let kept?):
                    segments = MessageSegments(kept.first, rest: kept.rest)
                case .failure:
                    break   // answered below, as the general path answers a result it cannot encode
                }
            }
            if segments == nil {
                segments = try encodeOutcome(outcome, of: call, codec: codec, segmenting: codec, channel: channel)
            }
            guard let segments else { return .null }
            if let limit, segments.count > limit.current - MessengerConnection.replyFrameOverhead {
                return .segments(try tooLarge(segments.count, of: call, codec: codec, channel: channel, limit: limit))
            }
            return .segments(segments)
        }
    }
}

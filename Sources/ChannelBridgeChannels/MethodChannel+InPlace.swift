import ChannelBridgeBytes
import ChannelBridgeCodec
import ChannelBridgeMessenger

extension MethodChannel {
    /// A synchronous handler with the Standard codec in the messenger's handler shape, run where the
    /// request was received: the call is decoded from the receive buffer, and the success
    /// envelope is encoded into the reply buffer the messenger lends, with no existential codec call and
    /// no array of its own for the request or the reply. It answers exactly as the general path
    /// does (`decodeCall`, `encodeOutcome`, `tooLarge`), through which error envelopes and the
    /// other rare answers go.
    static func inPlaceHandler(
        _ handler: @escaping SynchronousHandler, codec: StandardMethodCodec, channel: String,
        limit: FrameLimit?
    ) -> MessageHandler {
        let recent = RecentMethodName()
        return { request, reply in
            let message = request.bytes
            // Bound from an optional rather than assigned in a `do` block: a `let` assigned so
            // lives in memory, and is copied to be passed to `handler` (a retain and a release of
            // the method and of the arguments).
            var malformed: CodecError?
            guard
                let call = decodeCall(
                    message, tail: request.tail, codec: codec, recent: &recent.name, failure: &malformed)
            else {
                return .payload(
                    try MalformedCall(error: malformed!, codec: codec, channel: channel, message: message).reply())
            }
            var failure: (any Error)?
            guard let value = result(of: handler, for: call, failure: &failure) else {
                return try answer(.failure(failure!), method: call.method, codec: codec, channel: channel, limit: limit)
            }
            return try encode(value, method: call.method, into: &reply, codec: codec, channel: channel, limit: limit)
        }
    }

    /// An immediate handler with the Standard codec in the messenger's handler shape, run where the request
    /// was received as `inPlaceHandler(_:codec:channel:limit:)` runs a synchronous one: a result at
    /// hand is encoded into the lent reply buffer; work that has to suspend is handed back
    /// (`.later`) and answered as `setMethodCallHandler` answers it. A call to the method of the
    /// call before it goes to `encoded` first, with its arguments undecoded; only when that
    /// declines are they decoded, for `handler`.
    static func inPlaceHandler(
        immediate handler: @escaping ImmediateHandler, encoded: EncodedImmediateHandler?,
        codec: StandardMethodCodec, channel: String, limit: FrameLimit?
    ) -> MessageHandler {
        let recent = RecentMethodName()
        return { request, reply in
            let message = request.bytes
            if let encoded, request.tail == nil, let message,
                let arguments = codec.recentCallArguments(in: message, recent: &recent.name)
            {
                let result: ImmediateResult?
                do {
                    result = try encoded(recent.name.name, arguments)
                } catch {
                    return try answer(
                        .failure(error), method: recent.name.name, codec: codec, channel: channel, limit: limit)
                }
                if let result {
                    return try answer(
                        result, method: recent.name.name, into: &reply, codec: codec, channel: channel, limit: limit)
                }
            }
            var malformed: CodecError?
            guard
                let call = decodeCall(
                    message, tail: request.tail, codec: codec, recent: &recent.name, failure: &malformed)
            else {
                return .payload(
                    try MalformedCall(error: malformed!, codec: codec, channel: channel, message: message).reply())
            }
            let result: ImmediateResult
            do {
                result = try handler(call)
            } catch {
                return try answer(.failure(error), method: call.method, codec: codec, channel: channel, limit: limit)
            }
            return try answer(result, method: call.method, into: &reply, codec: codec, channel: channel, limit: limit)
        }
    }

    /// The reply to what an immediate handler answered: the result at hand written over `reply`
    /// (see `encode`), or its later work, answered as `setMethodCallHandler` answers it.
    @inline(__always)
    private static func answer(
        _ result: ImmediateResult, method: String, into reply: inout [UInt8],
        codec: StandardMethodCodec, channel: String, limit: FrameLimit?
    ) throws -> HandlerAnswer {
        switch result {
        case .value(let value):
            return try encode(value, method: method, into: &reply, codec: codec, channel: channel, limit: limit)
        case .later(let work):
            return .later(
                LaterWork {
                    HandlerReply(
                        try await Self.reply(
                            method: method, from: work, codec: codec, segmenting: codec, channel: channel,
                            limit: limit))
                })
        }
    }

    /// The success envelope of `value` written over `reply` (the encode's lent payload, whose
    /// storage goes back into `reply`), or a payload of its own, or the answer the general path
    /// gives when it cannot be encoded or is larger than the caller accepts.
    @inline(__always)
    private static func encode(
        _ value: StandardValue, method: String, into reply: inout [UInt8],
        codec: StandardMethodCodec, channel: String, limit: FrameLimit?
    ) throws -> HandlerAnswer {
        // No `Result` around the encoding and no `outcome` variable on this path: each would be a
        // copy and a destroy of the value more.
        // `reply`'s storage is moved into the encode, not swapped for a placeholder: every path
        // below gives it a value again, and no placeholder is left to release.
        let encoded: Payload
        do throws(CodecError) {
            encoded = try codec.encodeSuccessEnvelope(value, reusing: consume reply)
        } catch {
            reply = []
            // Answered as the general path answers a result it cannot encode.
            return try answer(.success(value), method: method, codec: codec, channel: channel, limit: limit)
        }
        guard encoded.isLent else {
            reply = []
            return try checked(encoded, method: method, codec: codec, channel: channel, limit: limit)
        }
        let count = encoded.readableRange.count
        reply = (consume encoded).storage
        // Compared through the optional, not unwrapped: `if let` retains the limit,
        // and nothing here captures `method`, which would copy it.
        if count > (limit?.current ?? .max) - MessengerConnection.replyFrameOverhead, let limit {
            return .payload(try tooLarge(count, method: method, codec: codec, channel: channel, limit: limit))
        }
        return .written(count: count)
    }

    /// The call in `message` (and `tail`), or nil with why it is malformed in `failure`.
    @inline(__always)
    private static func decodeCall(
        _ message: UnsafeRawBufferPointer?, tail: [UInt8]?, codec: StandardMethodCodec,
        recent: inout StandardMethodCodec.RecentMethod, failure: inout CodecError?
    ) -> MethodCall? {
        do throws(CodecError) {
            guard let message else { throw CodecError(.invalidMethodCall, "method call payload is null") }
            if let tail { return try codec.decodeMethodCall(head: message, tail: tail) }
            return try codec.decodeMethodCall(in: message, recentMethod: &recent)
        } catch {
            failure = error
            return nil
        }
    }

    /// What `handler` returns for `call`, or nil with what it threw in `failure`. (For the same
    /// reason as `decodeCall`: a value assigned in a `do` block was copied to be encoded.)
    @inline(__always)
    private static func result(
        of handler: SynchronousHandler, for call: MethodCall, failure: inout (any Error)?
    ) -> StandardValue? {
        do {
            return try handler(call)
        } catch {
            failure = error
            return nil
        }
    }

    /// What the general path answers for `outcome` (an error envelope, or the answer to a result
    /// the codec cannot encode), checked against the caller's limit.
    private static func answer(
        _ outcome: Result<StandardValue, any Error>, method: String, codec: StandardMethodCodec,
        channel: String, limit: FrameLimit?
    ) throws -> HandlerAnswer {
        guard
            let payload = try encodeOutcome(outcome, method: method, codec: codec, segmenting: codec, channel: channel)
        else {
            return .null
        }
        return try checked(payload, method: method, codec: codec, channel: channel, limit: limit)
    }

    /// The reply, or `REPLY_TOO_LARGE` instead when the caller would refuse it.
    private static func checked(
        _ payload: Payload, method: String, codec: StandardMethodCodec,
        channel: String, limit: FrameLimit?
    ) throws -> HandlerAnswer {
        if let limit, payload.count > limit.current - MessengerConnection.replyFrameOverhead {
            return .payload(try tooLarge(payload.count, method: method, codec: codec, channel: channel, limit: limit))
        }
        return .payload(payload)
    }
}

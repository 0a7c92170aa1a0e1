import ChannelBridgeBytes
public import ChannelBridgeCodec
public import ChannelBridgeMessenger
import ChannelBridgePlatform

/// A named channel for method calls, with Flutter's semantics: a call is a method name and
/// arguments; the answer is a value, a `MethodError`, or "not implemented".
///
/// ```swift
/// let channel = MethodChannel(name: "channelbridge/extension", messenger: messenger)
///
/// // Calling the other side:
/// let version = try await channel.invokeMethod("getVersion")
///
/// // Answering calls from the other side:
/// channel.setMethodCallHandler { call in
///     switch call.method {
///     case "ping": return .string("pong")
///     case "fail": throw MethodError(code: "FAILED", message: "asked to fail")
///     default: throw MethodNotImplemented()
///     }
/// }
/// ```
public final class MethodChannel: Sendable {
    /// A handler for incoming calls: return the result, throw `MethodError` for an error envelope,
    /// throw `MethodNotImplemented` for a null reply, or throw anything else for an error envelope
    /// with code `"error"` and the error's description as its message.
    public typealias Handler = @Sendable (MethodCall) async throws -> StandardValue
    /// A handler that answers without suspending; see `setSynchronousMethodCallHandler`.
    public typealias SynchronousHandler = @Sendable (MethodCall) throws -> StandardValue

    public let name: String
    public let messenger: any BinaryMessenger
    public let codec: any MethodCodec
    /// `codec` again when it can leave large byte values uncopied; looked up once, here.
    let segmentingCodec: (any SegmentingMethodCodec)?
    /// `codec` again when it is the Standard codec (`isStandard`), called directly rather than
    /// through an existential; looked up once, here. Not optional: unwrapping an
    /// optional copies it, a retain and two releases per call.
    let standardCodec: StandardMethodCodec
    let isStandard: Bool
    /// The connection that serves `messenger` directly (`FastPathMessenger.directConnection`):
    /// calls then await their reply in `invokeMethod`'s own frame. Looked up once, here.
    let connection: MessengerConnection?
    /// The buffer calls on `connection` with the Standard codec are encoded into, reused.
    let encodeBuffers = EncodeBufferPool()
    let slot = HandlerSlot()

    public init(name: String, messenger: any BinaryMessenger, codec: some MethodCodec = StandardMethodCodec()) {
        self.name = name
        self.messenger = messenger
        self.codec = codec
        // The codec and the messenger say which fast paths they offer; nothing is assumed of types.
        segmentingCodec = codec as? any SegmentingMethodCodec
        let standard = segmentingCodec?.standard
        standardCodec = standard ?? StandardMethodCodec()
        isStandard = standard != nil
        connection = messenger.fastPath?.directConnection
        // A large reply whose result is one `Uint8List` then comes in two parts, so that the
        // decoded list is the array the connection read it into.
        if isStandard { connection?.splitReplies(with: StandardMethodCodec.byteListStart(inEnvelope:count:)) }
    }

    /// Calls `method` on the other side and returns its result.
    ///
    /// - Throws: `MethodError` when the other side answered with an error envelope;
    ///   `ChannelError` with code `notImplemented` (null reply), `malformedReply`, `unencodable` or
    ///   `timedOut`; or, when the messenger failed the call, `connectionClosed`, `handlerFailed`,
    ///   `frameTooLarge` or `invalidChannel` (with the messenger's error as `messengerError`).
    ///   Cancelling the calling task withdraws the request.
    /// - Parameter timeout: when set, the request is withdrawn (CANCEL) if no reply arrives in time.
    nonisolated(nonsending) public func invokeMethod(
        _ method: String, arguments: StandardValue = .null,
        timeout: Duration? = nil
    ) async throws -> StandardValue {
        let request = try encodeCall(method, arguments: arguments, pooled: connection != nil && timeout == nil)
        let reply: Payload?
        if let timeout {
            let (name, messenger) = (self.name, self.messenger)
            reply = try await withTimeout(
                timeout,
                onTimeout: {
                    ChannelError.timedOut(channel: name, method: method, after: timeout)
                }
            ) {
                try await Self.send(request, on: name, method: method, messenger: messenger)
            }
        } else if let connection {
            reply = try await call(method, request, on: connection)
        } else {
            reply = try await Self.send(request, on: name, method: method, messenger: messenger)
        }
        guard let reply else { throw ChannelError.notImplemented(channel: name, method: method) }
        return try decodeReply(reply, method: method)
    }

    nonisolated(nonsending) private static func send(
        _ request: Payload, on channel: String, method: String,
        messenger: any BinaryMessenger
    ) async throws -> Payload? {
        do {
            // A connection hands over a split reply in its two parts (a call with a timeout).
            if let connection = messenger.fastPath?.directConnection {
                return try await connection.sendKeepingParts(onChannel: channel, request)
            }
            // One array is the common case; the plain send is what every messenger implements.
            if request.isContiguous {
                return try await messenger.send(onChannel: channel, message: request.array).map { Payload($0) }
            }
            return try await messenger.sendPayload(onChannel: channel, request)
                .map { Payload($0) }
        } catch let error as MessengerError {
            // The messenger sees only bytes; the channel reports the failure, naming the method.
            throw ChannelError(error, channel: channel, method: method)
        }
    }

    /// Installs (or, with `nil`, removes) the handler for calls arriving on this channel.
    ///
    /// Calls reach the handler in arrival order. Removing only removes the handler this channel
    /// object installed, never one installed later by another object on the same name.
    public func setMethodCallHandler(_ handler: Handler?) {
        guard let handler else {
            slot.install(nil, on: messenger, channel: name)
            return
        }
        let (name, codec, segmenting, limit) = (self.name, self.codec, segmentingCodec, messenger.fastPath?.frameLimit)
        slot.install(
            inTask: { message in
                HandlerReply(
                    try await Self.answer(
                        message, with: handler, codec: codec, segmenting: segmenting,
                        channel: name, limit: limit))
            }, on: messenger, channel: name)
    }

    /// A handler that also returns work to run once its reply has been queued (package API: the
    /// extension host shuts down only after the reply to the call that ended its request is out).
    package typealias ReplyThenHandler =
        @Sendable (MethodCall) async throws -> (StandardValue, afterReply: (@Sendable () -> Void)?)

    /// Installs a handler whose `afterReply` work the messenger runs after queuing the reply (see
    /// `HandlerReply`); on a messenger outside the package it runs as the handler returns.
    package func setMethodCallHandler(replyThen handler: @escaping ReplyThenHandler) {
        let (name, codec, segmenting, limit) = (self.name, self.codec, segmentingCodec, messenger.fastPath?.frameLimit)
        slot.install(
            inTask: { message in
                // One call's after-work, set by the handler below before `answer` returns.
                let after = LockedValue<(@Sendable () -> Void)?>(nil)
                let reply = try await Self.answer(
                    message,
                    with: { call in
                        let (value, afterReply) = try await handler(call)
                        after.withLock { $0 = afterReply }
                        return value
                    }, codec: codec, segmenting: segmenting, channel: name, limit: limit)
                return HandlerReply(reply, afterReply: after.withLock { $0 })
            }, on: messenger, channel: name)
    }

    /// Installs (or, with `nil`, removes) a handler that answers at once, without suspending.
    ///
    /// It runs right on the connection's reader thread, as each call is read, with no task
    /// started for it, which makes a small call cost noticeably less CPU on a busy server (see
    /// `channelbridge-bench pipeline`). It must not block: the connection reads nothing else meanwhile.
    /// Flutter's platform-side handlers have this shape too.
    ///
    /// ```swift
    /// channel.setSynchronousMethodCallHandler { call in
    ///     guard call.method == "echo" else { throw MethodNotImplemented() }
    ///     return call.arguments
    /// }
    /// ```
    public func setSynchronousMethodCallHandler(_ handler: SynchronousHandler?) {
        guard let handler else {
            slot.install(nil, on: messenger, channel: name)
            return
        }
        let (name, codec, segmenting, limit) = (self.name, self.codec, segmentingCodec, messenger.fastPath?.frameLimit)
        if isStandard {
            // A large call whose arguments are one `Uint8List` comes in two parts, so that the
            // decoded list is the array the connection read it into.
            slot.install(
                Self.inPlaceHandler(handler, codec: standardCodec, channel: name, limit: limit), mayAnswerLater: false,
                splitter: StandardMethodCodec.byteListStart(inCall:count:), on: messenger, channel: name)
            return
        }
        slot.install(
            { message, _ in
                let call: MethodCall
                switch Self.decodeCall(message.array, codec: codec, channel: name) {
                case .success(let decoded): call = decoded
                case .failure(let malformed): return .payload(try malformed.reply())
                }
                let reply = try Self.reply(
                    to: Result { try handler(call) }, method: call.method, codec: codec, segmenting: segmenting,
                    channel: name, limit: limit)
                return reply.map(HandlerAnswer.payload) ?? .null
            }, mayAnswerLater: false, on: messenger, channel: name)
    }

    /// Turns one incoming request into its reply (`nil` for "not implemented").
    static func answer(
        _ message: [UInt8]?, with handler: Handler, codec: any MethodCodec,
        segmenting: (any SegmentingMethodCodec)?, channel: String, limit: FrameLimit? = nil
    ) async throws -> Payload? {
        let call: MethodCall
        switch decodeCall(message, codec: codec, channel: channel) {
        case .success(let decoded): call = decoded
        case .failure(let malformed): return try malformed.reply()
        }
        return try await reply(
            method: call.method, from: { try await handler(call) }, codec: codec, segmenting: segmenting,
            channel: channel, limit: limit)
    }

    /// The reply to a call of `method` once `work` has found its result or thrown.
    static func reply(
        method: String, from work: () async throws -> StandardValue, codec: any MethodCodec,
        segmenting: (any SegmentingMethodCodec)?, channel: String, limit: FrameLimit?
    ) async throws -> Payload? {
        let outcome: Result<StandardValue, any Error>
        do { outcome = .success(try await work()) } catch { outcome = .failure(error) }
        return try reply(
            to: outcome, method: method, codec: codec, segmenting: segmenting, channel: channel, limit: limit)
    }

    /// The reply to a call of `method` for what its handler returned or threw, or
    /// `REPLY_TOO_LARGE` instead when the caller would refuse it.
    static func reply(
        to outcome: Result<StandardValue, any Error>, method: String, codec: any MethodCodec,
        segmenting: (any SegmentingMethodCodec)?, channel: String, limit: FrameLimit?
    ) throws -> Payload? {
        let reply = try encodeOutcome(outcome, method: method, codec: codec, segmenting: segmenting, channel: channel)
        if let limit, let size = reply?.count, size > limit.current - MessengerConnection.replyFrameOverhead {
            return try tooLarge(size, method: method, codec: codec, channel: channel, limit: limit)
        }
        return reply
    }

    /// The error code of the answer that replaces a reply larger than the caller accepts.
    public static let replyTooLargeErrorCode = "REPLY_TOO_LARGE"

    /// The answer instead of a reply of `size` bytes, larger than a frame the caller accepts can
    /// carry: the error envelope `REPLY_TOO_LARGE` naming the channel, the method and the size
    /// (wire protocol §4.8).
    static func tooLarge(
        _ size: Int, method: String, codec: any MethodCodec, channel: String,
        limit frameLimit: FrameLimit
    ) throws -> Payload {
        let limit = frameLimit.current - MessengerConnection.replyFrameOverhead
        let error = MethodError(
            code: replyTooLargeErrorCode,
            message: "The reply to \(method) on channel \(channel) has \(size) bytes; the caller accepts at most "
                + "\(limit), so it was not sent",
            details: [
                "channel": .string(channel), "method": .string(method), "size": .int64(Int64(size)),
                "limit": .int64(Int64(limit)),
            ])
        return Payload(try encodeError(error, codec: codec))
    }

    /// The error code of the answer to a call whose arguments would take more memory to decode
    /// than the codec allows for a message of its size (`CodecError.Code.decodedTooLarge`).
    public static let requestTooLargeErrorCode = "REQUEST_TOO_LARGE"

    /// A request whose payload is no method call: answered with the `malformed` error envelope;
    /// or one whose values the codec refused to build (`decodedTooLarge`): answered with
    /// `REQUEST_TOO_LARGE` naming the channel and, when the bytes start with it, the method.
    struct MalformedCall: Error {
        let error: CodecError
        let codec: any MethodCodec
        let channel: String
        /// The call's method name, read on its own, when the arguments were too large to decode.
        var method: String?

        init(error: CodecError, codec: any MethodCodec, channel: String, message: UnsafeRawBufferPointer?) {
            self.error = error
            self.codec = codec
            self.channel = channel
            if error.code == .decodedTooLarge, let message, codec is StandardMethodCodec {
                method = StandardMethodCodec.methodName(ofCall: message)
            }
        }

        func reply() throws -> Payload {
            guard error.code == .decodedTooLarge else {
                return Payload(
                    try encodeError(MethodError(code: "malformed", message: error.description), codec: codec))
            }
            let call = method.map { "The call to \($0)" } ?? "A call"
            var details: [StandardValue.MapEntry] = [.init("channel", .string(channel))]
            if let method { details.append(.init("method", .string(method))) }
            let refusal = MethodError(
                code: MethodChannel.requestTooLargeErrorCode,
                message: "\(call) on channel \(channel) was refused: \(error.description)",
                details: .map(details))
            return Payload(try encodeError(refusal, codec: codec))
        }
    }

    static func decodeCall(
        _ message: [UInt8]?, codec: any MethodCodec, channel: String
    ) -> Result<MethodCall, MalformedCall> {
        do throws(CodecError) {
            guard let message else { throw CodecError(.invalidMethodCall, "method call payload is null") }
            return .success(try codec.decodeMethodCall(message))
        } catch {
            guard let message else {
                return .failure(MalformedCall(error: error, codec: codec, channel: channel, message: nil))
            }
            return .failure(
                message.withUnsafeBytes { MalformedCall(error: error, codec: codec, channel: channel, message: $0) })
        }
    }

    /// The reply to a call of `method` for what its handler returned or threw.
    static func encodeOutcome(
        _ outcome: Result<StandardValue, any Error>, method: String,
        codec: any MethodCodec, segmenting: (any SegmentingMethodCodec)?,
        channel: String
    ) throws -> Payload? {
        let result: StandardValue
        switch outcome {
        case .success(let value):
            result = value
        case .failure(let error as MethodError):
            return Payload(try encodeError(error, codec: codec))
        case .failure(is MethodNotImplemented):
            return nil
        case .failure(let error):
            return Payload(
                try encodeError(MethodError(code: "error", message: String(describing: error)), codec: codec))
        }
        do {
            // One array unless the codec kept a large byte value uncopied. Optional chaining calls
            // the codec in place; `if let` would copy the optional existential.
            if let encoded = try segmenting?.encodeSuccessEnvelopeSegments(result) {
                return encoded
            }
            return Payload(try codec.encodeSuccessEnvelope(result))
        } catch {
            return Payload(
                try encodeError(
                    MethodError(
                        code: "error",
                        message: "Cannot encode the result of \(method) on channel \(channel): \(error)"),
                    codec: codec))
        }
    }

    /// Encodes an error envelope; if the codec cannot carry the details (e.g. a map with non-string
    /// keys in JSON), sends the code and message without them rather than no answer at all.
    static func encodeError(_ error: MethodError, codec: any MethodCodec) throws -> [UInt8] {
        do {
            return try codec.encodeErrorEnvelope(error)
        } catch let codecError {
            var plain = MethodError(code: error.code, message: error.message, stacktrace: error.stacktrace)
            plain.message = (error.message.map { $0 + " " } ?? "") + "(details not encodable: \(codecError))"
            return try codec.encodeErrorEnvelope(plain)
        }
    }
}

package import ChannelBridgeCodec
import ChannelBridgeMessenger

extension MethodChannel {
    /// What an immediate handler answers as a call arrives: the call's result, or the work that
    /// has to suspend to find it.
    package enum ImmediateResult: Sendable {
        case value(StandardValue)
        case later(@Sendable () async throws -> StandardValue)
    }

    /// A handler that answers at once when it can and otherwise returns the work to run in a task;
    /// it throws as `Handler` does. It must not block.
    package typealias ImmediateHandler = @Sendable (MethodCall) throws -> ImmediateResult

    /// A handler that may answer a Standard-codec call from its arguments where they lie, before
    /// they are decoded (a plugin reading one string argument); `nil` to have the call decoded
    /// and given to the `ImmediateHandler` instead. It throws as `Handler` does, must answer
    /// exactly as the `ImmediateHandler` would for the same call, and must not block.
    package typealias EncodedImmediateHandler =
        @Sendable (_ method: String, _ arguments: StandardEncodedArguments) throws -> ImmediateResult?

    /// Installs a handler that answers on the connection's reader thread when it can, with no task
    /// started for the call (a plugin's cached read), and in a task when it cannot. The
    /// replies are those `setMethodCallHandler` gives for the same results and errors.
    ///
    /// `encoded` is asked first where the call is read in place (the messenger is a connection
    /// and the codec the Standard one), for a call to the same method as the call before it.
    package func setImmediateMethodCallHandler(
        _ handler: @escaping ImmediateHandler, encoded: EncodedImmediateHandler? = nil
    ) {
        let (name, codec, segmenting, limit) = (self.name, self.codec, segmentingCodec, messenger.fastPath?.frameLimit)
        if isStandard {
            // Read and answered in place when the result is at hand (see `inPlaceHandler(immediate:)`).
            slot.install(
                Self.inPlaceHandler(
                    immediate: handler, encoded: encoded, codec: standardCodec, channel: name, limit: limit),
                mayAnswerLater: true, splitter: StandardMethodCodec.byteListStart(inCall:count:), on: messenger,
                channel: name)
            return
        }
        slot.install(
            { message, _ in
                let call: MethodCall
                switch Self.decodeCall(message.array, codec: codec, channel: name) {
                case .success(let decoded): call = decoded
                case .failure(let malformed): return .payload(try malformed.reply())
                }
                let outcome: Result<StandardValue, any Error>
                do {
                    switch try handler(call) {
                    case .value(let value):
                        outcome = .success(value)
                    case .later(let work):
                        return .later(
                            LaterWork {
                                HandlerReply(
                                    try await Self.reply(
                                        method: call.method, from: work, codec: codec, segmenting: segmenting,
                                        channel: name, limit: limit))
                            })
                    }
                } catch {
                    outcome = .failure(error)
                }
                let reply = try Self.reply(
                    to: outcome, method: call.method, codec: codec, segmenting: segmenting, channel: name,
                    limit: limit)
                return reply.map(HandlerAnswer.payload) ?? .null
            }, mayAnswerLater: true, on: messenger, channel: name)
    }
}

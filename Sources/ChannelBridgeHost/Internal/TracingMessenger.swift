import ChannelBridgeBytes
import ChannelBridgeCodec
import ChannelBridgeMessenger

/// A messenger that logs, decoded, every message a session receives and every reply and event it
/// sends (`--trace`), and otherwise passes everything through to the session's messenger, fast
/// paths (`FastPathMessenger`) included.
final class TracingMessenger: BinaryMessenger, FastPathMessenger {
    let base: any BinaryMessenger
    private let label: String
    private let log: @Sendable (String) -> Void
    /// Channels whose payloads are raw bytes, logged as hex instead of being decoded.
    private let binaryChannels: Set<String>

    init(
        base: any BinaryMessenger, label: String, binaryChannels: Set<String>, log: @escaping @Sendable (String) -> Void
    ) {
        self.base = base
        self.label = label
        self.binaryChannels = binaryChannels
        self.log = log
    }

    func send(onChannel channel: String, message: [UInt8]?) async throws -> [UInt8]? {
        log("\(label) send \(channel) \(describeCall(message, channel: channel))")
        return try await base.send(onChannel: channel, message: message)
    }

    func post(onChannel channel: String, message: [UInt8]?) throws {
        log("\(label) event \(channel) \(describeEnvelope(message, channel: channel))")
        try base.post(onChannel: channel, message: message)
    }

    @discardableResult
    func setMessageHandler(onChannel channel: String, _ handler: BinaryMessageHandler?) -> MessageHandlerToken {
        guard let handler else { return base.setMessageHandler(onChannel: channel, nil) }
        return base.setMessageHandler(onChannel: channel) { [self] message in
            let call = traceCall(message, channel: channel)
            do {
                let reply = try await handler(message)
                traceReply(reply, to: call, channel: channel)
                return reply
            } catch {
                traceFailure(error, of: call, channel: channel)
                throw error
            }
        }
    }

    func send(onChannel channel: String, payload: Payload) async throws -> [UInt8]? {
        log("\(label) send \(channel) \(describeCall(payload.array, channel: channel))")
        return try await base.sendPayload(onChannel: channel, payload)
    }

    @discardableResult
    func setMessageHandler(
        onChannel channel: String, _ handler: MessageHandler?, mayAnswerLater: Bool, splitter: PayloadSplitter?
    ) -> MessageHandlerToken {
        guard let handler else {
            return base.installMessageHandler(
                onChannel: channel, nil, mayAnswerLater: mayAnswerLater, splitter: splitter)
        }
        return base.installMessageHandler(
            onChannel: channel,
            { [self] message, reply in
                let call = traceCall(message.array, channel: channel)
                do {
                    let answer = try handler(message, &reply)
                    switch answer {
                    case .null: traceReply(nil, to: call, channel: channel)
                    case .written(let count): traceReply(Array(reply[..<count]), to: call, channel: channel)
                    case .payload(let payload): traceReply(payload.array, to: call, channel: channel)
                    case .later(let work):
                        // Traced as it ends.
                        return .later(LaterWork { [self] in try await traced(call, channel: channel, work.run) })
                    }
                    return answer
                } catch {
                    traceFailure(error, of: call, channel: channel)
                    throw error
                }
            }, mayAnswerLater: mayAnswerLater, splitter: splitter)
    }

    /// Runs `work` for the traced `call` and logs its reply or failure.
    private func traced(
        _ call: String, channel: String, _ work: () async throws -> HandlerReply
    ) async throws -> HandlerReply {
        do {
            let reply = try await work()
            traceReply(reply.reply?.array, to: call, channel: channel)
            return reply
        } catch {
            traceFailure(error, of: call, channel: channel)
            throw error
        }
    }

    private func traceCall(_ message: [UInt8]?, channel: String) -> String {
        let call = describeCall(message, channel: channel)
        log("\(label) call \(channel) \(call)")
        return call
    }

    private func traceReply(_ reply: [UInt8]?, to call: String, channel: String) {
        log("\(label) reply \(channel) \(call.prefix(80)) → \(describeEnvelope(reply, channel: channel))")
    }

    private func traceFailure(_ error: any Error, of call: String, channel: String) {
        log("\(label) reply \(channel) \(call.prefix(80)) → failed (status 2): \(error)")
    }

    func removeMessageHandler(_ token: MessageHandlerToken) {
        base.removeMessageHandler(token)
    }

    func onClose(_ callback: @escaping @Sendable (MessengerError) -> Void) {
        base.onClose(callback)
    }

    // Flow control and frame limits are the wrapped messenger's.
    var outboundFlow: OutboundFlow? { base.fastPath?.outboundFlow }
    var frameLimit: FrameLimit? { base.fastPath?.frameLimit }
    // Sees every message it passes on, so never bypassed.
    var directConnection: MessengerConnection? { nil }

    private func describeCall(_ message: [UInt8]?, channel: String) -> String {
        guard let message else { return "null" }
        if binaryChannels.contains(channel) { return Self.bytes(message) }
        guard let call = try? StandardMethodCodec().decodeMethodCall(message) else {
            return Self.bytes(message) + " (not a method call)"
        }
        return "\(call.method) \(Self.clipped(TypedValueNotation.canonicalText(call.arguments)))"
    }

    private func describeEnvelope(_ reply: [UInt8]?, channel: String) -> String {
        guard let reply else { return "null reply (not implemented)" }
        if binaryChannels.contains(channel) { return Self.bytes(reply) }
        switch try? StandardMethodCodec().decodeEnvelope(reply) {
        case .success(let value)?:
            return "success \(Self.clipped(TypedValueNotation.canonicalText(value)))"
        case .error(let error)?:
            return
                "error \(error.code): \(error.message ?? "") \(Self.clipped(TypedValueNotation.canonicalText(error.details)))"
        case nil:
            return Self.bytes(reply) + " (not an envelope)"
        }
    }

    private static func bytes(_ bytes: [UInt8]) -> String {
        let shown = Hex.encode(Array(bytes.prefix(64)))
        return "\(bytes.count) bytes \(shown)\(bytes.count > 64 ? "…" : "")"
    }

    private static func clipped(_ text: String) -> String {
        text.count > 2_000 ? String(text.prefix(2_000)) + "…" : text
    }
}

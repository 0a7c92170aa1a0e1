package import ChannelBridgeBytes

/// What a handler's later work answers: its reply, and work to run once that reply
/// has been queued for writing.
///
/// `afterReply` is how "the `listen` reply goes out before the stream's first event" and "the call
/// that ended the extension request is answered before the host's GOODBYE" are ordered by
/// construction: the messenger runs it right after handing the reply to its transport, on the same
/// task, so anything it writes is queued behind the reply.
package struct HandlerReply: Sendable {
    /// The reply; `nil` is a null reply.
    package var reply: Payload?
    package var afterReply: (@Sendable () -> Void)?

    package init(_ reply: Payload?, afterReply: (@Sendable () -> Void)? = nil) {
        self.reply = reply
        self.afterReply = afterReply
    }

    /// What `handler` answers for `message`, received as an array, with a reply buffer of its own
    /// (a messenger that lends none): its answer at hand, or what its later work finds.
    package init(answering message: [UInt8]?, with handler: MessageHandler) async throws {
        var buffer: [UInt8] = []
        let answer = try HandlerMessage.reading(message) { try handler($0, &buffer) }
        switch answer {
        case .null: self.init(nil)
        case .written(let count): self.init(Payload(Array(buffer[..<count])))
        case .payload(let payload): self.init(payload)
        case .later(let work): self = try await work.run()
        }
    }
}

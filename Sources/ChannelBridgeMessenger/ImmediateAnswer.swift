/// What an immediate handler answers as it reads a request: its reply, or the work that has to
/// suspend to find one.
package enum ImmediateAnswer: Sendable {
    /// The reply, found without suspending; `nil` is a null reply.
    case now(MessageSegments?)
    /// Work the messenger runs in a task, as it runs a segmented handler.
    case later(@Sendable () async throws -> HandlerReply)

    /// The reply: the one at hand, or the one the later work finds.
    package func reply() async throws -> HandlerReply {
        switch self {
        case .now(let reply): HandlerReply(reply)
        case .later(let work): try await work()
        }
    }
}

/// A handler that answers at once when it can (a read from a cache) and says when it cannot. A
/// messenger runs it where it reads the request and starts a task only for `.later`, so a request
/// answered at once costs no task. It must not block. Installed with
/// `FastPathMessenger.setImmediateMessageHandler`.
package typealias ImmediateMessageHandler = @Sendable (_ message: [UInt8]?) throws -> ImmediateAnswer

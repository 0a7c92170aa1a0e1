/// What a `MessageHandler` answered.
package enum HandlerAnswer: Sendable {
    /// A null reply ("not implemented").
    case null
    /// The reply is the first `count` bytes of the buffer the handler was lent.
    case written(count: Int)
    /// The reply in segments: a large byte value kept in its own array, or an error envelope.
    case segments(MessageSegments)
    /// No reply yet: work the messenger runs in a task. Only a handler installed with
    /// `mayAnswerLater` answers so.
    case later(LaterWork)
}

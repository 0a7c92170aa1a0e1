package import ChannelBridgeBytes

/// What a `MessageHandler` answered.
package enum HandlerAnswer: Sendable {
    /// A null reply ("not implemented").
    case null
    /// The reply is the first `count` bytes of the buffer the handler was lent.
    case written(count: Int)
    /// The reply as a payload of its own: a large byte value kept in its own array (a segment),
    /// or an error envelope.
    case payload(Payload)
    /// No reply yet: work the messenger runs in a task. Only a handler installed with
    /// `mayAnswerLater` answers so.
    case later(LaterWork)
}

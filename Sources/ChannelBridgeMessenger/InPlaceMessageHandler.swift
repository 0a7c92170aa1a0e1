/// What an `InPlaceMessageHandler` answered.
package enum InPlaceReply: Sendable {
    /// A null reply ("not implemented").
    case null
    /// The reply is the first `count` bytes of the buffer the handler was given.
    case written(count: Int)
    /// The reply in segments: a large byte value kept in its own array, or an error envelope.
    case segments(MessageSegments)
    /// No reply yet: work the messenger runs in a task, as it runs a segmented handler. Only a
    /// handler installed with `mayAnswerLater` answers so (it then holds a handler slot and an
    /// owed entry while the work runs, as an immediate handler's `.later` work does).
    case later(LaterWork)
}

/// Work an in-place handler leaves for later. A class, so that `InPlaceReply` keeps the layout of
/// an enum whose payloads are references and integers: a closure payload would make every reply
/// returned, copied and destroyed on the fast path cost more.
package final class LaterWork: Sendable {
    package let run: @Sendable () async throws -> HandlerReply

    package init(_ run: @escaping @Sendable () async throws -> HandlerReply) {
        self.run = run
    }
}

/// A handler that answers without suspending, reading its request where it was received and
/// writing its reply into a buffer the connection reuses, so that a request and its reply cost no
/// array of their own. `message` is `nil` for a null payload and is valid only during
/// the call; `reply` arrives with the storage earlier replies left in it, its bytes being room to
/// write over (`StandardMethodCodec.encodeSuccessEnvelope(_:reusing:)` does). `tail` is set for a
/// large payload split for the handler (`setInPlaceMessageHandler(onChannel:_:splitter:)`): the
/// payload is then `message` followed by `tail`, whose array the handler may keep.
///
/// Only `MessengerConnection` runs these (`setInPlaceMessageHandler`), on the thread delivering
/// received bytes; `MethodChannel.setSynchronousMethodCallHandler` and
/// `setImmediateMethodCallHandler` install one when its messenger is a connection itself and its
/// codec the Standard one.
package typealias InPlaceMessageHandler =
    @Sendable (
        _ message: UnsafeRawBufferPointer?, _ tail: [UInt8]?,
        _ reply: inout [UInt8]
    ) throws -> InPlaceReply

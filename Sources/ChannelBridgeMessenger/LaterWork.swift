/// Work a `MessageHandler` leaves for later (`HandlerAnswer.later`). A class, so that
/// `HandlerAnswer` keeps the layout of an enum whose payloads are references and integers: a
/// closure payload would make every answer returned, copied and destroyed on the fast path cost
/// more.
package final class LaterWork: Sendable {
    package let run: @Sendable () async throws -> HandlerReply

    package init(_ run: @escaping @Sendable () async throws -> HandlerReply) {
        self.run = run
    }
}

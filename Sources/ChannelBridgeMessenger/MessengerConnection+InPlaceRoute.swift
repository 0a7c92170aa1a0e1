import Synchronization

/// Requests answered in place without the state lock.
///
/// `handleRequest` decides a request's fate in `state`'s lock: whether the session is open,
/// whether its id repeats one in flight, whether GOODBYE or a refusal stands, and which handler
/// the channel has. For a channel answered in place, the delivering thread remembers that handler
/// with the epoch of `answerRules` it found it in (`inPlaceRoute`). Every change to what that
/// decision reads goes up the epoch in the same lock (`ConnectionState` does it from the fields
/// themselves), so a later request on the same channel, with the epoch unchanged and none of the
/// peer's requests in flight (`answerRules.inboundCount`, whose ids it could repeat), gets the
/// decision the lock would give: answered by that handler. Anything else takes
/// the lock as before. Where a change and a request race, the request is decided as if it had
/// taken the lock first, which it could have.
extension MessengerConnection {
    /// The channel last answered in place, its handler, and the epoch they were looked up in.
    struct InPlaceRoute {
        let channel: String
        let handler: InPlaceMessageHandler
        let epoch: UInt64
    }

    /// Whether a request on `channel` may be answered by `inPlaceRoute`'s handler without the lock.
    @inline(__always)
    func routesInPlace(_ channel: String) -> Bool {
        // Fields compared in place: binding the route copied it, two retains and two releases.
        guard inPlaceRoute?.epoch == answerRules.epoch.load(ordering: .acquiring),
              answerRules.inboundCount.load(ordering: .relaxed) == 0,
              inPlaceRoute?.channel == channel else { return false }
        // Every request is answered, so none starts while the answers pile up unsent.
        return !(flow?.isAnswerBacklogged ?? false)
    }

    /// Runs in-place `handler` on the request's payload and writes its reply.
    @inline(__always)
    func answerInPlace(_ handler: InPlaceMessageHandler, id: UInt32, channel: String, payload: RequestPayload) {
        let answer = payload.withBytes { message, tail in Result { try handler(message, tail, &replyScratch) } }
        writeInPlaceReply(id: id, channel: channel, answer, endsDelivery: deliveringLastFrame)
    }

    /// The transport's delivering side has delivered its last bytes (its reader has ended); call
    /// it there, after the last delivery. Lets go of the remembered handler, which can hold the
    /// connection (a handler capturing its channel, which holds its messenger): the handler
    /// table lets go of it at the close, and this reference must not outlive the session.
    package func deliveriesEnded() {
        inPlaceRoute = nil
        releasePrepaidCharges()
    }
}

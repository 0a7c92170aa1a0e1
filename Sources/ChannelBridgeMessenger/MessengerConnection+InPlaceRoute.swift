import ChannelBridgeBytes
import ChannelBridgePlatform
import Synchronization

/// Requests answered in place without the state lock.
///
/// `handleRequest` decides a request's fate in `state`'s lock: whether the session is open,
/// whether its id repeats one in flight, whether GOODBYE or a refusal stands, and which handler
/// the channel has. For a channel answered in place, the delivering thread remembers that handler
/// with the epoch of `answerRules` it found it in (`ReaderState.inPlaceRoute`). Every change to
/// what that decision reads goes up the epoch in the same lock (`ConnectionLifecycle`,
/// `ConnectionState`), so a later request on the same channel, with the epoch unchanged and none
/// of the peer's requests in flight (`answerRules.inboundCount`, whose ids it could repeat), gets
/// the decision the lock would give: answered by that handler. Anything else takes the lock as
/// before. Where a change and a request race, the request is decided as if it had taken the lock
/// first, which it could have.
extension MessengerConnection {
    /// The channel last answered in place, its handler, and the epoch they were looked up in.
    struct InPlaceRoute {
        let channel: String
        let handler: MessageHandler
        let epoch: UInt64
        /// The handler was installed with `mayAnswerLater`.
        let mayAnswerLater: Bool
    }

    /// Whether a request on `channel` with `payload` may be answered by the remembered route's
    /// handler without the lock.
    @inline(__always)
    func routesInPlace(_ channel: String, payload: Payload?) -> Bool {
        // Fields compared in place: binding the route copied it, two retains and two releases.
        let mayAnswerLater = reader.withValue { reader -> Bool? in
            guard reader.inPlaceRoute?.epoch == answerRules.epoch.load(ordering: .acquiring),
                answerRules.inboundCount.load(ordering: .relaxed) == 0,
                reader.inPlaceRoute?.channel == channel
            else { return nil }
            return reader.inPlaceRoute.unsafelyUnwrapped.mayAnswerLater
        }
        guard let mayAnswerLater else { return false }
        // A closed gate decides each request by its payload, which the route does not look at.
        if requestGate?.isClosed == true { return false }
        // Work left for later holds its request's budget charge, taken only in the lock.
        if mayAnswerLater, (payload?.count ?? 0) >= RequestBudget.requestChargeThreshold { return false }
        // Every request is answered, so none starts while the answers pile up unsent.
        return !(flow?.isAnswerBacklogged ?? false)
    }

    /// Runs in-place `handler` on the request's payload and writes its reply.
    ///
    /// The handler writes into `ReaderState.replyScratch` where it lies, inside the box's access
    /// (moving the buffer out and back costs a release per call). It cannot reach the rest of
    /// that state: what touches it is the delivery itself and the reader's own questions between
    /// reads (`inputDemand`, `partialFrameByteCount`, a driven call), none of which a synchronous
    /// handler asks.
    @inline(__always)
    func answerInPlace(_ handler: MessageHandler, id: UInt32, channel: String, payload: Payload?) {
        let answer = reader.withValue { reader in
            HandlerMessage.reading(payload) { message in Result { try handler(message, &reader.replyScratch) } }
        }
        writeInPlaceReply(id: id, channel: channel, answer, endsDelivery: reader.withValue { $0.deliveringLastFrame })
    }

    /// Work a handler left for later, for a request answered on the route, which
    /// holds no owed entry yet: it gets one now, and a task. The route was taken with nothing of
    /// the peer's in flight, so a handler slot is free and the id repeats none; a request that
    /// is not charged against the budget is the only kind that takes the route with such a
    /// handler. A session closed meanwhile owes no reply: the work is dropped.
    func startLater(_ work: LaterWork, id: UInt32, channel: String) {
        let serial = state.withLock { state -> UInt64? in
            if state.isClosed { return nil }
            state.nextInboundSerial &+= 1
            state.inbound[id] = ConnectionState.InboundRequest(serial: state.nextInboundSerial, charged: 0)
            return state.nextInboundSerial
        }
        guard let serial else { return }
        startHandlerTask(.later(work), channel: channel, id: id, serial: serial)
    }

    /// Runs a `mayAnswerLater` handler where its request was read for a request decided in the lock, which holds an
    /// owed entry (and a handler slot) already: its answer at hand is the reply, copied out of
    /// `replyScratch`, and its later work runs in a task that holds the entry.
    func answerOwedInPlace(
        _ handler: MessageHandler, id: UInt32, channel: String, serial: UInt64,
        payload: Payload?
    ) {
        let answer = reader.withValue { reader in
            HandlerMessage.reading(payload) { message in Result { try handler(message, &reader.replyScratch) } }
        }
        let reply: Result<Payload?, any Error>
        switch answer {
        case .success(.later(let work)):
            startHandlerTask(.later(work), channel: channel, id: id, serial: serial)
            return
        case .success(.written(let count)):
            let bytes = reader.withValue { reader in
                precondition(
                    count >= 0 && count <= reader.replyScratch.count,
                    "a handler reported more bytes than it was lent")
                return Array(reader.replyScratch[..<count])
            }
            reply = .success(Payload(bytes))
        case .success(.null):
            reply = .success(nil)
        case .success(.payload(let payload)):
            reply = .success(payload)
        case .failure(let error):
            reply = .failure(error)
        }
        let endsDelivery = reader.withValue { $0.deliveringLastFrame }
        finishRequest(id: id, channel: channel, serial: serial, reply, endsDelivery: endsDelivery)
    }

    /// The transport's delivering side has delivered its last bytes (its reader has ended); call
    /// it there, after the last delivery. Lets go of the remembered handler, which can hold the
    /// connection (a handler capturing its channel, which holds its messenger): the handler
    /// table lets go of it at the close, and this reference must not outlive the session.
    package func deliveriesEnded() {
        reader.claim()
        reader.withValue { $0.inPlaceRoute = nil }
        releasePrepaidCharges()
    }
}

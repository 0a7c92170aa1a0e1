/// Where a session is in its life, as one enum whose phases only move forward: open, ending
/// (one side said GOODBYE, or both), closed.
///
/// Every change goes through a transition below and `enter`, which keeps `answerRules` current:
/// each phase decides a REQUEST's fate differently, and the delivering thread reads the epoch
/// without the state lock (`MessengerConnection+InPlaceRoute`). A transition the phase does not
/// allow changes nothing and returns false, so that the caller's guard and the change are one
/// step. Kept inside `ConnectionState`, behind its lock.
struct ConnectionLifecycle {
    /// The peer's GOODBYE: its code and its reason.
    typealias PeerGoodbye = (code: GoodbyeCode, reason: String)

    /// A close asked for while the reader delivered the frames of one read
    /// (`MessengerConnection.receivingBatch`), for the end of that batch.
    struct DeferredClose {
        var code: GoodbyeCode
        var reason: String
        var waitForOwedReplies: Bool
    }

    private enum Phase {
        /// Neither side has said goodbye. With `refusal`, new requests are answered with REPLY
        /// status 2 carrying it.
        case open(refusal: String?, deferredClose: DeferredClose?)
        /// The peer said GOODBYE: it sends only replies from now on, and this side no new
        /// requests. This side may still close (and say GOODBYE).
        case peerSaidGoodbye(PeerGoodbye, deferredClose: DeferredClose?)
        /// This side said GOODBYE: only owed replies go out.
        case saidGoodbye(GoodbyeCode)
        /// Both sides said GOODBYE: the session ends once nothing is owed either way.
        case bothSaidGoodbye(GoodbyeCode, peer: PeerGoodbye)
        /// Over: every waiter has been failed.
        case closed(MessengerError)
    }

    private var phase = Phase.open(refusal: nil, deferredClose: nil)
    let answerRules: AnswerRules

    init(answerRules: AnswerRules) {
        self.answerRules = answerRules
    }

    /// The one place the phase changes. `decidesRequests` is false only for a change that does
    /// not alter what `handleRequest` decides (a close deferred or taken).
    private mutating func enter(_ next: Phase, decidesRequests: Bool = true) {
        phase = next
        if decidesRequests { answerRules.changed() }
    }

    // MARK: Transitions

    /// From now on new requests are refused with `reason` (the last one given wins). Only while
    /// open: once a side said goodbye, new requests are dropped or refused as the session ends.
    @discardableResult
    mutating func refuseNewRequests(reason: String) -> Bool {
        guard case .open(_, let deferredClose) = phase else { return false }
        enter(.open(refusal: reason, deferredClose: deferredClose))
        return true
    }

    /// Remembers a close for the end of the current batch. Only when this side may still say
    /// goodbye (`maySayGoodbye`); a close already deferred is kept, not replaced.
    @discardableResult
    mutating func deferClose(_ close: DeferredClose) -> Bool {
        switch phase {
        case .open(let refusal, nil):
            enter(.open(refusal: refusal, deferredClose: close), decidesRequests: false)
        case .peerSaidGoodbye(let peer, nil):
            enter(.peerSaidGoodbye(peer, deferredClose: close), decidesRequests: false)
        default:
            return false
        }
        return true
    }

    /// The close deferred to the end of the batch, taken out; nil when none waits (a GOODBYE
    /// this side said or the close since then made it moot).
    mutating func takeDeferredClose() -> DeferredClose? {
        switch phase {
        case .open(let refusal, let close?):
            enter(.open(refusal: refusal, deferredClose: nil), decidesRequests: false)
            return close
        case .peerSaidGoodbye(let peer, let close?):
            enter(.peerSaidGoodbye(peer, deferredClose: nil), decidesRequests: false)
            return close
        default:
            return nil
        }
    }

    /// This side says GOODBYE `code`: false when it already has, or the session is over. A close
    /// deferred meanwhile is dropped, as it would have found this GOODBYE said.
    @discardableResult
    mutating func sayGoodbye(_ code: GoodbyeCode) -> Bool {
        switch phase {
        case .open: enter(.saidGoodbye(code))
        case .peerSaidGoodbye(let peer, _): enter(.bothSaidGoodbye(code, peer: peer))
        case .saidGoodbye, .bothSaidGoodbye, .closed: return false
        }
        return true
    }

    /// The peer said GOODBYE: false when it already had (the first one counts), or the session
    /// is over.
    @discardableResult
    mutating func receiveGoodbye(_ goodbye: PeerGoodbye) -> Bool {
        switch phase {
        case .open(_, let deferredClose): enter(.peerSaidGoodbye(goodbye, deferredClose: deferredClose))
        case .saidGoodbye(let code): enter(.bothSaidGoodbye(code, peer: goodbye))
        case .peerSaidGoodbye, .bothSaidGoodbye, .closed: return false
        }
        return true
    }

    /// The session is over, for `error`: false when it already was (the first error counts).
    @discardableResult
    mutating func close(with error: MessengerError) -> Bool {
        if case .closed = phase { return false }
        enter(.closed(error))
        return true
    }

    // MARK: What the phase says

    /// Neither side has said goodbye and the session is not over: the common case, checked first.
    @inline(__always)
    var isOpen: Bool {
        if case .open = phase { return true }
        return false
    }

    @inline(__always)
    var isClosed: Bool {
        if case .closed = phase { return true }
        return false
    }

    /// Why the session ended, once it has.
    var closeError: MessengerError? {
        if case .closed(let error) = phase { return error }
        return nil
    }

    /// This side may still say GOODBYE: it has not, and the session is not over.
    var maySayGoodbye: Bool {
        switch phase {
        case .open, .peerSaidGoodbye: true
        case .saidGoodbye, .bothSaidGoodbye, .closed: false
        }
    }

    /// The GOODBYE this side said, until the session is over.
    var sentGoodbye: GoodbyeCode? {
        switch phase {
        case .saidGoodbye(let code), .bothSaidGoodbye(let code, _): code
        case .open, .peerSaidGoodbye, .closed: nil
        }
    }

    /// The GOODBYE the peer said, until the session is over.
    var peerGoodbye: PeerGoodbye? {
        switch phase {
        case .peerSaidGoodbye(let peer, _), .bothSaidGoodbye(_, let peer): peer
        case .open, .saidGoodbye, .closed: nil
        }
    }

    /// While open, the text new requests are refused with, if they are.
    var refusal: String? {
        if case .open(let refusal, _) = phase { return refusal }
        return nil
    }
}

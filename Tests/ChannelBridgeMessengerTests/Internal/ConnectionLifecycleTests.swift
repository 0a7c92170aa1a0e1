@testable import ChannelBridgeMessenger
import Synchronization
import Testing

/// A session's phases (`ConnectionLifecycle`): they only move forward, a transition the phase
/// does not allow changes nothing, and every change that alters what a REQUEST is answered with
/// moves `AnswerRules.epoch`, which the in-place route is decided by.
@Suite struct ConnectionLifecycleTests {
    let rules = AnswerRules()

    var epoch: UInt64 { rules.epoch.load(ordering: .relaxed) }

    static func close(
        _ reason: String, _ code: GoodbyeCode = .normal, waitForOwedReplies: Bool = true
    ) -> ConnectionLifecycle.DeferredClose {
        ConnectionLifecycle.DeferredClose(code: code, reason: reason, waitForOwedReplies: waitForOwedReplies)
    }

    @Test func aSessionGoesFromOpenThroughBothGoodbyesToClosed() {
        var lifecycle = ConnectionLifecycle(answerRules: rules)
        #expect(lifecycle.isOpen && lifecycle.maySayGoodbye && !lifecycle.isClosed)
        #expect(lifecycle.sentGoodbye == nil && lifecycle.peerGoodbye == nil && lifecycle.refusal == nil)

        do { let moved = lifecycle.refuseNewRequests(reason: "busy"); #expect(moved) }
        do { let moved = lifecycle.refuseNewRequests(reason: "shutting down"); #expect(moved) }
        #expect(lifecycle.isOpen && lifecycle.refusal == "shutting down")
        #expect(epoch == 2)

        do { let moved = lifecycle.sayGoodbye(.shuttingDown); #expect(moved) }
        #expect(!lifecycle.isOpen && !lifecycle.maySayGoodbye && !lifecycle.isClosed)
        #expect(lifecycle.sentGoodbye == .shuttingDown && lifecycle.peerGoodbye == nil)
        #expect(lifecycle.refusal == nil)
        #expect(epoch == 3)

        do { let moved = lifecycle.receiveGoodbye((.normal, "bye")); #expect(moved) }
        #expect(lifecycle.sentGoodbye == .shuttingDown)
        #expect(lifecycle.peerGoodbye?.code == .normal && lifecycle.peerGoodbye?.reason == "bye")
        #expect(epoch == 4)

        let error = MessengerError(.connectionClosed, "the peer closed the connection")
        do { let moved = lifecycle.close(with: error); #expect(moved) }
        #expect(lifecycle.isClosed && !lifecycle.isOpen && !lifecycle.maySayGoodbye)
        #expect(lifecycle.closeError == error)
        #expect(lifecycle.sentGoodbye == nil && lifecycle.peerGoodbye == nil)
        #expect(epoch == 5)
    }

    /// The peer's GOODBYE first: this side may still say its own, and then both have.
    @Test func afterThePeersGoodbyeThisSideMayStillSayItsOwn() {
        var lifecycle = ConnectionLifecycle(answerRules: rules)
        do { let moved = lifecycle.receiveGoodbye((.forbidden, "not you")); #expect(moved) }
        #expect(!lifecycle.isOpen && lifecycle.maySayGoodbye)
        #expect(lifecycle.peerGoodbye?.code == .forbidden && lifecycle.sentGoodbye == nil)
        do { let moved = lifecycle.sayGoodbye(.normal); #expect(moved) }
        #expect(!lifecycle.maySayGoodbye)
        #expect(lifecycle.sentGoodbye == .normal && lifecycle.peerGoodbye?.reason == "not you")
        #expect(epoch == 2)
    }

    @Test func aSecondGoodbyeEitherWayChangesNothing() {
        var lifecycle = ConnectionLifecycle(answerRules: rules)
        do { let moved = lifecycle.sayGoodbye(.normal); #expect(moved) }
        do { let moved = lifecycle.sayGoodbye(.protocolError); #expect(!moved) }
        #expect(lifecycle.sentGoodbye == .normal)
        do { let moved = lifecycle.receiveGoodbye((.normal, "first")); #expect(moved) }
        do { let moved = lifecycle.receiveGoodbye((.protocolError, "second")); #expect(!moved) }
        #expect(lifecycle.peerGoodbye?.reason == "first")
        do { let moved = lifecycle.sayGoodbye(.protocolError); #expect(!moved) }
        #expect(lifecycle.sentGoodbye == .normal)
        #expect(epoch == 2)
    }

    /// Refusing new requests means something only while open: after a GOODBYE they are dropped
    /// (the peer's) or refused as closing (this side's).
    @Test func requestsAreRefusedOnlyWhileOpen() {
        var lifecycle = ConnectionLifecycle(answerRules: rules)
        do { let moved = lifecycle.receiveGoodbye((.normal, "")); #expect(moved) }
        do { let moved = lifecycle.refuseNewRequests(reason: "busy"); #expect(!moved) }
        #expect(lifecycle.refusal == nil)
        #expect(epoch == 1)
    }

    @Test func aClosedSessionTakesNoTransition() {
        var lifecycle = ConnectionLifecycle(answerRules: rules)
        let first = MessengerError(.connectionClosed, "first")
        do { let moved = lifecycle.close(with: first); #expect(moved) }
        let closedAt = epoch
        do { let moved = lifecycle.close(with: MessengerError(.protocolError, "second")); #expect(!moved) }
        do { let moved = lifecycle.refuseNewRequests(reason: "busy"); #expect(!moved) }
        do { let moved = lifecycle.sayGoodbye(.normal); #expect(!moved) }
        do { let moved = lifecycle.receiveGoodbye((.normal, "late")); #expect(!moved) }
        do { let moved = lifecycle.deferClose(Self.close("")); #expect(!moved) }
        do { let taken = lifecycle.takeDeferredClose(); #expect(taken == nil) }
        #expect(lifecycle.closeError == first)
        #expect(lifecycle.sentGoodbye == nil && lifecycle.peerGoodbye == nil && lifecycle.refusal == nil)
        #expect(epoch == closedAt)
    }

    /// A close asked for during a batch: the first one is kept for the batch's end, taken once,
    /// kept across the peer's GOODBYE, and dropped by this side's GOODBYE or the close, after which
    /// it would have done nothing. It decides no request, so the epoch stays.
    @Test func aDeferredCloseIsTakenOnceAndDroppedWhenMoot() throws {
        var lifecycle = ConnectionLifecycle(answerRules: rules)
        let first = Self.close("first", .shuttingDown, waitForOwedReplies: false)
        do { let moved = lifecycle.deferClose(first); #expect(moved) }
        do { let moved = lifecycle.deferClose(Self.close("second")); #expect(!moved) }
        #expect(lifecycle.isOpen && epoch == 0)
        let deferred = lifecycle.takeDeferredClose()
        let taken = try #require(deferred)
        #expect(taken.code == .shuttingDown && taken.reason == "first" && !taken.waitForOwedReplies)
        do { let taken = lifecycle.takeDeferredClose(); #expect(taken == nil) }

        do { let moved = lifecycle.refuseNewRequests(reason: "busy"); #expect(moved) }
        do { let moved = lifecycle.deferClose(Self.close("across")); #expect(moved) }
        #expect(lifecycle.refusal == "busy")
        do { let moved = lifecycle.receiveGoodbye((.normal, "")); #expect(moved) }
        do { let taken = lifecycle.takeDeferredClose(); #expect(taken?.reason == "across") }

        do { let moved = lifecycle.deferClose(Self.close("moot")); #expect(moved) }
        do { let moved = lifecycle.sayGoodbye(.normal); #expect(moved) }
        do { let taken = lifecycle.takeDeferredClose(); #expect(taken == nil) }
        do { let moved = lifecycle.deferClose(Self.close("late")); #expect(!moved) }

        var closing = ConnectionLifecycle(answerRules: AnswerRules())
        do { let moved = closing.deferClose(Self.close("moot")); #expect(moved) }
        do { let moved = closing.close(with: MessengerError(.connectionClosed, "closed")); #expect(moved) }
        do { let taken = closing.takeDeferredClose(); #expect(taken == nil) }
    }
}

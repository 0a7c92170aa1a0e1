import ChannelBridgePlatform
import Synchronization

/// A large REQUEST is charged from the `RequestBudget` as soon as its frame's kind and length are
/// in, before its body is read (wire protocol §4.10, rule 8). One that does not fit stops the
/// reading there, so that what waits for the budget is a few bytes of the peer's and not its
/// whole frame: many sessions waiting at once cost the host no more than the budget.
///
/// The one exception is a session with a call of this side's pending: its reply may come behind
/// the request's body, and a handler holding the budget may be waiting for it. Such a session
/// reads on; the request, read whole, is held until it fits (`handleRequest`), as is one that
/// began before the call was made (the call wakes the reader).
///
/// Everything here runs on the thread that delivers received bytes, which alone touches the
/// `prepaidCharge` and `chargeAwaitedAtHeader` it keeps (`ReaderState`).
extension MessengerConnection {
    /// Decoding stopped inside a REQUEST frame of `length` bytes: charges it now, or stops the
    /// reading until a release lets it in.
    func chargeBegunRequest(length: Int) {
        guard let requestBudget, reader.withValue({ $0.prepaidCharge == 0 && $0.chargeAwaitedAtHeader == 0 }) else {
            return
        }
        let charge = RequestBudget.charge(forRequestOf: length)
        guard charge > 0 else { return }
        if requestBudget.acquire(charge, waiter: ObjectIdentifier(self), wake: budgetWake) {
            reader.withValue { $0.prepaidCharge = charge }
            return
        }
        let waits = state.withLock { state -> Bool in
            guard state.pending.isEmpty, !state.isClosed else { return false }
            readerAwaitsBudget.store(true, ordering: .relaxed)
            return true
        }
        guard waits else {
            requestBudget.forget(ObjectIdentifier(self))
            return
        }
        reader.withValue { $0.chargeAwaitedAtHeader = charge }
        holdsInput.store(true, ordering: .relaxed)
        let waiters = state.withLock { state in
            defer { state.inputHeldWaiters = [] }
            return state.inputHeldWaiters
        }
        for waiter in waiters { waiter.resume() }
    }

    /// `inputDemand` while a begun request waits for the budget with its body unread: `.wait`
    /// while it does; nil once it is charged, the session is over, or this side has a call
    /// pending. The reading then goes on as the held frames allow.
    func demandWhileAwaitingCharge() -> InputDemand? {
        let charge = reader.withValue { $0.chargeAwaitedAtHeader }
        guard charge > 0, let requestBudget else { return nil }
        let readOn = state.withLock { state -> Bool in
            let readOn = state.isClosed || !state.pending.isEmpty
            if readOn { readerAwaitsBudget.store(false, ordering: .relaxed) }
            return readOn
        }
        if readOn {
            requestBudget.forget(ObjectIdentifier(self))
        } else if requestBudget.acquire(charge, waiter: ObjectIdentifier(self), wake: budgetWake) {
            reader.withValue { $0.prepaidCharge = charge }
            readerAwaitsBudget.store(false, ordering: .relaxed)
        } else {
            return .wait
        }
        reader.withValue { $0.chargeAwaitedAtHeader = 0 }
        if input.withLock({ !$0.isHolding }) { holdsInput.store(false, ordering: .relaxed) }
        return nil
    }

    /// Bytes of the peer's read and not yet delivered: the frame begun and those held back. For
    /// tests and diagnostics.
    package var receivedUndeliveredByteCount: Int {
        input.withLock { $0.decoder.bufferedByteCount + $0.heldByteCount }
    }

    /// Deliveries ended: what begun and held requests had prepaid goes back to the budget.
    func releasePrepaidCharges() {
        guard let requestBudget else { return }
        let held = input.withLock { $0.takeAllPrepaid() }
        let prepaid = reader.withValue { reader in
            reader.chargeAwaitedAtHeader = 0
            return reader.takePrepaidCharge()
        }
        let total = held + prepaid
        readerAwaitsBudget.store(false, ordering: .relaxed)
        requestBudget.forget(ObjectIdentifier(self))
        requestBudget.release(total)
    }
}

import Synchronization

/// What decides a REQUEST's fate, as the delivering thread can read it without the connection's
/// state lock (`MessengerConnection+InPlaceRoute`). Kept current where the state changes:
/// `ConnectionLifecycle.enter` for the phase, `ConnectionState.setHandler` for handlers, the
/// `didSet` of `inbound` and `messageTasks` for the count, so no change can forget it.
final class AnswerRules: Sendable {
    /// Goes up, in the state lock, at every change `handleRequest` decides by: a handler set or
    /// removed, GOODBYE sent or received, new requests refused, the close.
    let epoch = Atomic<UInt64>(0)
    /// How many of the peer's requests and messages are in flight (`ConnectionState.inbound` and
    /// `messageTasks`), stored in the state lock. Read without it by the delivering thread, the
    /// only one that adds to either: a read may miss a removal, never an addition, so it never
    /// reads fewer than there are. At 0 no id can repeat one in flight and every handler slot is free.
    let inboundCount = Atomic<Int>(0)

    /// After `inbound` or `messageTasks` changed, to `count` entries together.
    @inline(__always)
    func inboundCountChanged(to count: Int) {
        inboundCount.store(count, ordering: .relaxed)
    }

    /// After a change to what `handleRequest` decides by.
    @inline(__always)
    func changed() {
        epoch.add(1, ordering: .releasing)
    }
}

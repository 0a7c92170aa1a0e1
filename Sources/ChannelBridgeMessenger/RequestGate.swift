import Synchronization

/// Closes every connection that shares it to new requests at once, from inside their own request
/// path rather than from a wrapper around their messenger, so those connections keep answering in
/// place until it closes.
///
/// Once `close()` has returned, a request that a connection has not yet begun to answer, on a
/// channel that has a handler, is answered with REPLY status 2 carrying `reason`, unless `admits`
/// lets it through to its handler; a one-way message is dropped unless admitted. Requests already
/// answered or running are not affected, and a request on a channel without a handler still gets
/// the null reply. A request that a connection decides while the gate closes is decided as if it
/// had arrived just before or just after the close.
///
/// The extension host shares one among its sessions and closes it when the extension request ends
/// (`ExtensionRequest`): from then on only the calls that answer `REQUEST_ALREADY_COMPLETED`
/// reach a handler.
///
/// ```swift
/// let gate = RequestGate(reason: "host is shutting down") { channel, _ in channel == "control" }
/// var options = MessengerConnection.Options()
/// options.requestGate = gate
/// // … connections made with `options` serve as usual …
/// gate.close()
/// ```
package final class RequestGate: Sendable {
    /// The status-2 text of a refused request.
    package let reason: String
    private let closed = Atomic<Bool>(false)
    /// Whether a request on a channel (its payload `nil` for a null one) reaches its handler after
    /// the close. Called outside every lock, on the thread that delivers the request.
    private let admits: @Sendable (_ channel: String, _ payload: UnsafeRawBufferPointer?) -> Bool

    package init(
        reason: String,
        admitting admits: @escaping @Sendable (_ channel: String, _ payload: UnsafeRawBufferPointer?) -> Bool
    ) {
        self.reason = reason
        self.admits = admits
    }

    /// Refuses new requests from now on; closing again does nothing.
    package func close() {
        closed.store(true, ordering: .sequentiallyConsistent)
    }

    /// Whether `close()` has been called.
    @inline(__always)
    package var isClosed: Bool {
        closed.load(ordering: .sequentiallyConsistent)
    }

    /// Whether a request on `channel` with `payload` is refused now.
    func refuses(channel: String, payload: UnsafeRawBufferPointer?) -> Bool {
        isClosed && !admits(channel, payload)
    }
}

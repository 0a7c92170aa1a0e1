public import ChannelBridgeCodec
import ChannelBridgeMessenger
import ChannelBridgePlatform

/// The extension request that every session of a host shares (`NSExtensionContext`): it ends
/// exactly once, by `exit`, `cancel`, the deadline or a signal, whichever comes first.
///
/// Ending is decided synchronously, under a lock, so a call that ends the request has done so
/// before the session reads its next frame: a request queued behind it already sees the end.
///
/// ```swift
/// let request = ExtensionRequest(inputItems: items)
/// if let earlier = request.end(.completed) { print("already ended: \(earlier)") }
/// let ending = await request.waitForEnd()
/// ```
public final class ExtensionRequest: Sendable {
    /// How the request ended, and the reply (if any) the host owes before it shuts down.
    public struct Ending: Sendable {
        public var outcome: HostOutcome
        public var returnedItems: StandardValue?
        public var error: MethodError?
        /// Raised once the reply to the call that ended the request has been queued; `nil` when
        /// no call ended it (deadline, signal).
        let endingReply: OneShotSignal?
    }

    private struct State {
        var ending: Ending?
        var openedURLs: [OpenedURL] = []
        var waiters: [CheckedContinuation<Ending, Never>] = []
    }

    public let inputItems: [InputItem]
    private let state = LockedValue(State())
    /// Closed as the request ends, before `end` returns: the sessions that share it then refuse
    /// every request but those that answer `REQUEST_ALREADY_COMPLETED`.
    let gate: RequestGate?
    /// In an isolated host's worker: the request itself, in the host process. This one then only
    /// keeps the worker's own sessions in step (its gate), and every end goes to the host.
    let remote: RemoteRequest?

    public init(inputItems: [InputItem]) {
        self.inputItems = inputItems
        gate = nil
        remote = nil
    }

    /// A request whose end closes `gate`; with `remote`, a worker's stand-in for the host's.
    init(inputItems: [InputItem], gate: RequestGate, remote: RemoteRequest? = nil) {
        self.inputItems = inputItems
        self.gate = gate
        self.remote = remote
    }

    /// The gate a host's sessions share: once the request has ended, a request is refused with
    /// REPLY status 2 `host is shutting down`, except `exit`, `completeRequest` and `cancel` on the
    /// extension channel, which reach their handler and get `REQUEST_ALREADY_COMPLETED`.
    static func sessionGate(extensionChannel: String) -> RequestGate {
        RequestGate(reason: ExtensionHost.shuttingDownReason) { channel, payload in
            guard channel == extensionChannel, let payload,
                let call = try? StandardMethodCodec().decodeMethodCall(Array(payload))
            else { return false }
            return ["exit", "completeRequest", "cancel"].contains(call.method)
        }
    }

    /// Ends the request unless it has already ended.
    ///
    /// In an isolated host's worker the end is also sent to the host, which ends the one request
    /// unless another session ended it first (its record then keeps the first end).
    ///
    /// - Returns: `nil` when this call ended it; the earlier outcome when it had already ended.
    @discardableResult
    public func end(
        _ outcome: HostOutcome, returnedItems: StandardValue? = nil,
        error: MethodError? = nil
    ) -> HostOutcome? {
        let earlier = end(outcome, returnedItems: returnedItems, error: error, endingReply: nil)
        if earlier == nil, let remote {
            remote.forwardEnd(outcome, returnedItems: returnedItems, error: error)
        }
        return earlier
    }

    func end(
        _ outcome: HostOutcome, returnedItems: StandardValue?, error: MethodError?,
        endingReply: OneShotSignal?
    ) -> HostOutcome? {
        let (earlier, ending, waiters) = state.withLock {
            state -> (HostOutcome?, Ending?, [CheckedContinuation<Ending, Never>]) in
            if let ending = state.ending { return (ending.outcome, nil, []) }
            let ending = Ending(outcome: outcome, returnedItems: returnedItems, error: error, endingReply: endingReply)
            state.ending = ending
            defer { state.waiters = [] }
            return (nil, ending, state.waiters)
        }
        if let ending {
            gate?.close()
            for waiter in waiters { waiter.resume(returning: ending) }
        }
        return earlier
    }

    /// How the request ended, once it has.
    public var outcome: HostOutcome? { state.withLock { $0.ending?.outcome } }

    /// Whether the request has ended.
    package var hasEnded: Bool { state.withLock { $0.ending != nil } }

    /// Records an `openURL` call for the completion record.
    package func recordOpenedURL(_ url: OpenedURL) {
        state.withLock { $0.openedURLs.append(url) }
    }

    /// Waits until the request has ended.
    public func waitForEnd() async -> Ending {
        await withCheckedContinuation { continuation in
            let ending = state.withLock { state -> Ending? in
                if let ending = state.ending { return ending }
                state.waiters.append(continuation)
                return nil
            }
            if let ending { continuation.resume(returning: ending) }
        }
    }

    /// The completion record; `nil` until the request has ended.
    public var completionRecord: CompletionRecord? {
        state.withLock { state in
            state.ending.map {
                CompletionRecord(
                    outcome: $0.outcome, returnedItems: $0.returnedItems, error: $0.error,
                    openedURLs: state.openedURLs)
            }
        }
    }
}

import ChannelBridgePlatform

/// Suspends callers of `wait()` until `open()`; for handlers that must not answer yet.
///
/// ```swift
/// let gate = Gate()
/// messenger.setMessageHandler(onChannel: "slow") { message in await gate.wait(); return message }
/// // … check what happens while the reply is owed …
/// gate.open()
/// ```
public final class Gate: Sendable {
    private let state = LockedValue<(open: Bool, waiters: [CheckedContinuation<Void, Never>])>((false, []))

    public init() {}

    public func wait() async {
        await withCheckedContinuation { continuation in
            let resumeNow = state.withLock { state -> Bool in
                if state.open { return true }
                state.waiters.append(continuation)
                return false
            }
            if resumeNow { continuation.resume() }
        }
    }

    /// Lets every waiter, present and future, go on.
    public func open() {
        let waiters = state.withLock { state in
            state.open = true
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
    }
}

import ChannelBridgePlatform

/// A signal raised once that any number of tasks can wait for; waiting after it was raised returns
/// at once.
final class OneShotSignal: Sendable {
    private struct State {
        var raised = false
        var waiters: [CheckedContinuation<Void, Never>] = []
    }

    private let state = LockedValue(State())

    init() {}

    func raise() {
        let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            guard !state.raised else { return [] }
            state.raised = true
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
    }

    var isRaised: Bool { state.withLock { $0.raised } }

    func wait() async {
        await withCheckedContinuation { continuation in
            let raised = state.withLock { state -> Bool in
                if state.raised { return true }
                state.waiters.append(continuation)
                return false
            }
            if raised { continuation.resume() }
        }
    }
}

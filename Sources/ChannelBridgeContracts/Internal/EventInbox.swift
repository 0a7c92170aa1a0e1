import ChannelBridgePlatform

/// The messages a host sent on one event channel, in arrival order, for a verifier to wait on.
/// Unbounded in count only as far as the transcript asks: a verifier stops reading a stream once
/// it holds the events the transcript lists plus one, and drops the rest (`limit`).
final class EventInbox: Sendable {
    private struct State {
        var payloads: [[UInt8]?] = []
        var dropped = 0
        var waiter: (count: Int, continuation: CheckedContinuation<Void, Never>)?
    }

    private let state = LockedValue(State())
    /// Payloads kept at most; later ones are counted and dropped.
    let limit: Int

    init(limit: Int) {
        self.limit = limit
    }

    func append(_ payload: [UInt8]?) {
        let ready = state.withLock { state -> CheckedContinuation<Void, Never>? in
            guard state.payloads.count < limit else {
                state.dropped += 1
                return nil
            }
            state.payloads.append(payload)
            guard let waiter = state.waiter, state.payloads.count >= waiter.count else { return nil }
            state.waiter = nil
            return waiter.continuation
        }
        ready?.resume()
    }

    /// Waits until `count` payloads are in or `timeout` has passed, and returns what is in.
    func payloads(atLeast count: Int, within timeout: Duration) async -> [[UInt8]?] {
        let timer = Task { [self] in
            try? await Task.sleep(for: timeout)
            expire()
        }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let resumeNow = state.withLock { state -> Bool in
                if state.payloads.count >= count { return true }
                state.waiter = (count, continuation)
                return false
            }
            if resumeNow { continuation.resume() }
        }
        timer.cancel()
        return state.withLock { $0.payloads }
    }

    private func expire() {
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            defer { state.waiter = nil }
            return state.waiter?.continuation
        }
        waiter?.resume()
    }
}

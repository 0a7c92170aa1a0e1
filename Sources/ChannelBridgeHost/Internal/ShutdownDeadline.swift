import ChannelBridgePlatform

/// Runs the waiting part of a shutdown with a time limit. The work runs in a task of its own, not
/// a child: a child that waits on a store write stuck in `flock` would hold its task group's scope
/// open for as long as the write is stuck, and the limit is there precisely so that nothing waits
/// for that.
///
/// ```swift
/// let finished = await ShutdownDeadline.run(within: .seconds(5)) { await waitForOwedReplies() }
/// ```
enum ShutdownDeadline {
    /// Returns `true` once `work` has finished, or `false` when `limit` passed first; `work` then
    /// goes on, unattended, until it finishes (it is not cancelled: cancelling a session's
    /// handlers is the connection's own business).
    static func run(within limit: Duration, _ work: @escaping @Sendable () async -> Void) async -> Bool {
        let race = Race()
        return await withCheckedContinuation { continuation in
            race.start(continuation, limit: limit, work)
        }
    }

    /// Whichever of the work and the timer ends first resumes the waiter and stops the timer.
    private final class Race: Sendable {
        private struct State {
            var continuation: CheckedContinuation<Bool, Never>?
            var timer: Task<Void, Never>?
        }

        private let state = LockedValue(State())

        func start(
            _ continuation: CheckedContinuation<Bool, Never>, limit: Duration,
            _ work: @escaping @Sendable () async -> Void
        ) {
            state.withLock { $0.continuation = continuation }
            let timer = Task {
                try? await Task.sleep(for: limit)
                guard !Task.isCancelled else { return }
                self.finish(finished: false)
            }
            // The timer is kept only while the race is open: a finish that came first cancels it
            // here, outside the lock.
            let stored = state.withLock { state -> Bool in
                guard state.continuation != nil else { return false }
                state.timer = timer
                return true
            }
            if !stored { timer.cancel() }
            Task {
                await work()
                self.finish(finished: true)
            }
        }

        private func finish(finished: Bool) {
            let (continuation, timer) = state.withLock { state in
                defer {
                    state.continuation = nil
                    state.timer = nil
                }
                return (state.continuation, state.timer)
            }
            guard let continuation else { return }
            timer?.cancel()
            continuation.resume(returning: finished)
        }
    }
}

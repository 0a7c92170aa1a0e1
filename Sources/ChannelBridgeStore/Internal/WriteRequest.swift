import ChannelBridgePlatform

/// One write waiting for, or taking part in, a group commit. The committer calls `beginCommit`,
/// `apply` and `finish` from its thread; `withdraw` may come from any thread.
protocol PendingWrite: AnyObject, Sendable {
    /// Moves the write from waiting to committing; `false` when it was withdrawn first.
    func beginCommit() -> Bool
    /// Applies the change to the commit's edit (recording the caller's result).
    func apply(to edit: inout DocumentEdit)
    /// Acknowledges the write: with its result once the commit is durable, or with the failure.
    func finish(_ failure: StoreError?)
}

/// A write and its caller's continuation. The caller waits in `result()`; if its task is cancelled
/// while the write is still waiting, the write is withdrawn: it never runs, nothing is written, and
/// the caller gets `StoreError.cancelled`. A write that is already committing finishes.
final class WriteRequest<T: Sendable>: PendingWrite {
    private enum Phase {
        case waiting
        case committing(T?)
        case done(Result<T, StoreError>)
    }

    private struct State {
        var phase = Phase.waiting
        var continuation: CheckedContinuation<Result<T, StoreError>, Never>?
        /// A thread waiting in `blockingResult()`.
        var blockedThread: TimedSemaphore?
    }

    private let change: @Sendable (inout DocumentEdit) -> T
    private let description: String
    private let state = LockedValue(State())

    /// - Parameter description: what the write is, for the cancellation error ("set of 'k'").
    init(_ description: String, _ change: @escaping @Sendable (inout DocumentEdit) -> T) {
        self.description = description
        self.change = change
    }

    func beginCommit() -> Bool {
        state.withLock { state in
            guard case .waiting = state.phase else { return false }
            state.phase = .committing(nil)
            return true
        }
    }

    func apply(to edit: inout DocumentEdit) {
        let outcome = change(&edit)
        state.withLock { $0.phase = .committing(outcome) }
    }

    func finish(_ failure: StoreError?) {
        let description = description
        complete { phase in
            guard case .committing(let outcome) = phase else { return nil }
            if let failure { return .failure(failure) }
            // Every write of a commit that reaches `finish` without a failure was applied.
            guard let outcome else { return .failure(StoreError(.io, "the \(description) was not applied")) }
            return .success(outcome)
        }
    }

    /// Withdraws the write if it is still waiting.
    func withdraw() {
        let description = description
        complete { phase in
            guard case .waiting = phase else { return nil }
            return .failure(
                StoreError(.cancelled, "the \(description) was cancelled before it was written; nothing was written"))
        }
    }

    /// Waits for the acknowledgement; cancelling the waiting task withdraws a write not yet committing.
    func result() async throws(StoreError) -> T {
        let result = await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Result<T, StoreError>, Never>) in
                let done = state.withLock { state -> Result<T, StoreError>? in
                    if case .done(let result) = state.phase { return result }
                    state.continuation = continuation
                    return nil
                }
                if let done { continuation.resume(returning: done) }
            }
        } onCancel: {
            withdraw()
        }
        return try result.get()
    }

    /// Waits for the acknowledgement on the calling thread, for a synchronous caller (Foundation's
    /// `UserDefaults`); it must not be a thread of the concurrency pool. Such a write is never
    /// withdrawn: it finishes like one that is already committing.
    func blockingResult() throws(StoreError) -> T {
        let signal = TimedSemaphore()
        let done = state.withLock { state -> Result<T, StoreError>? in
            if case .done(let result) = state.phase { return result }
            state.blockedThread = signal
            return nil
        }
        if let done { return try done.get() }
        signal.wait()
        let result = state.withLock { state -> Result<T, StoreError>? in
            guard case .done(let result) = state.phase else { return nil }
            return result
        }
        // `complete` posts only after marking the write done.
        return try result!.get()
    }

    private func complete(_ decide: (Phase) -> Result<T, StoreError>?) {
        let resume = state.withLock {
            state -> (CheckedContinuation<Result<T, StoreError>, Never>?, TimedSemaphore?, Result<T, StoreError>)? in
            guard let result = decide(state.phase) else { return nil }
            state.phase = .done(result)
            defer {
                state.continuation = nil
                state.blockedThread = nil
            }
            return (state.continuation, state.blockedThread, result)
        }
        guard let (continuation, blockedThread, result) = resume else { return }
        continuation?.resume(returning: result)
        blockedThread?.post()
    }
}

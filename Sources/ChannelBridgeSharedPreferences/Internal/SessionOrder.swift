import ChannelBridgePlatform
import Synchronization

/// Keeps one session's store operations in program order: each takes effect after every operation
/// that arrived before it on the session.
///
/// The messenger starts handlers in arrival order and runs each synchronously up to its first
/// suspension (Protocol/wire-protocol.md §4). `perform` is called in that synchronous part, so
/// operations reach it in arrival order, and it starts each one when no earlier operation of the
/// other kind is still running:
/// - a read starts once every earlier write has been acknowledged (so a get sees every set before
///   it), and reads run side by side;
/// - a write starts once every earlier read has answered (so a get never sees a later set), and
///   writes run side by side: starting a write hands it to the store, which applies writes in the
///   order they were started, so a pipeline of writes is committed together, in order.
/// An operation that must wait is queued, and the queue holds exactly the operations that have not
/// started yet: one is taken off only once its synchronous part has run. So "nothing waits" is
/// true only when every earlier operation has reached the store, and an operation that arrives
/// while an earlier one is being started queues behind it instead of overtaking it. One thread at
/// a time (the one that claimed `starting`) starts waiters, in queue order, each on its own task
/// (`Task.immediate`, so its synchronous part runs before the next one starts). An operation
/// whose task is cancelled while it waits never starts.
///
/// With nothing to wait for (the common case: a read with no write pending), `perform` runs the
/// operation at once, on the caller's thread, with no task and no suspension of its own.
/// The queue holds at most the session's in-flight requests (bounded by the messenger).
///
/// `Context` is the session's own state (its group, its store), kept under the same lock, so that
/// a read answered where it was received looks up what it needs and asks whether it may run with
/// one lock (`readingContext`).
final class SessionOrder<Context: Sendable>: Sendable {
    enum Kind { case read, write }

    private struct State {
        var context: Context
        var runningReads = 0
        var runningWrites = 0
        var waiting: [Waiter] = []
        var head = 0
        /// A thread is starting waiters (`startWaiters`); others leave the starting to it, so an
        /// operation that finishes at once inside `start` does not recurse.
        var starting = false

        var hasWaiters: Bool { head < waiting.count }

        func mayStart(_ kind: Kind) -> Bool {
            kind == .read ? runningWrites == 0 : runningReads == 0
        }

        mutating func started(_ kind: Kind) {
            if kind == .read { runningReads += 1 } else { runningWrites += 1 }
        }

        mutating func finished(_ kind: Kind) {
            if kind == .read { runningReads -= 1 } else { runningWrites -= 1 }
        }
    }

    private let state: LockedValue<State>

    init(_ context: Context) {
        state = LockedValue(State(context: context))
    }

    /// Runs `body` on the session's state, under the lock.
    func withContext<R>(_ body: (inout Context) -> R) -> R {
        state.withLock { body(&$0.context) }
    }

    /// Runs `body` at once, on this thread, if the operation may start now (nothing waits and no
    /// operation of the other kind runs); `nil` when it may not, or when `body` cannot answer
    /// without suspending (it returns `nil`): then call `perform`.
    func runNow<T>(_ kind: Kind, _ body: () throws -> T?) rethrows -> T? {
        let now = state.withLock { state -> Bool in
            guard !state.hasWaiters, state.mayStart(kind) else { return false }
            state.started(kind)
            return true
        }
        guard now else { return nil }
        defer { finished(kind) }
        return try body()
    }

    /// What `body` reads of the session's state, and whether a read may run now, without being
    /// counted as running: nothing waits and no write runs. Only for a read that runs to its end
    /// where the session's requests are read, before the next one is read: no later operation of
    /// the session can start while it runs (they reach `perform` or `runNow` on that thread, after
    /// it), and an earlier one still running or waiting makes it false. So it orders the read as
    /// `runNow(.read)` would, and finds what the read needs, with one lock instead of three.
    func readingContext<R>(_ body: (Context) -> R) -> (R, mayReadNow: Bool) {
        state.withLock { (body($0.context), !$0.hasWaiters && $0.mayStart(.read)) }
    }

    /// Runs `operation` in program order and returns its result.
    func perform<T: Sendable>(_ kind: Kind, _ operation: @escaping @Sendable () async throws -> T) async throws -> T {
        let now = state.withLock { state -> Bool in
            guard !state.hasWaiters, state.mayStart(kind) else { return false }
            state.started(kind)
            return true
        }
        if now {
            defer { finished(kind) }
            return try await operation()
        }
        let waiter = Waiter(kind: kind)
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
                let queued = waiter.prepare(
                    start: {
                        // Runs on the releasing thread; the operation's synchronous part (a write
                        // handing itself to the store) is done before the next waiter starts.
                        Task.immediate {
                            let result: Result<T, any Error>
                            do { result = .success(try await operation()) } catch { result = .failure(error) }
                            self.finished(kind)
                            continuation.resume(with: result)
                        }
                    },
                    cancelled: {
                        continuation.resume(throwing: CancellationError())
                    })
                guard queued else { return }
                // Something may have finished between the check above and this append without
                // seeing this waiter: check again, and start it if it may run.
                let start = state.withLock { state -> Bool in
                    state.waiting.append(waiter)
                    return Self.claimStarting(&state)
                }
                if start { startWaiters() }
            }
        } onCancel: {
            waiter.cancel()
        }
    }

    /// Ends a running operation and starts the waiters that may now run.
    private func finished(_ kind: Kind) {
        let start = state.withLock { state -> Bool in
            state.finished(kind)
            return Self.claimStarting(&state)
        }
        if start { startWaiters() }
    }

    /// Whether the caller is to start waiters now: there are some, and nobody else is at it.
    private static func claimStarting(_ state: inout State) -> Bool {
        guard state.hasWaiters, !state.starting else { return false }
        state.starting = true
        return true
    }

    /// Starts waiters in queue order until none may start. The head stays in the queue until its
    /// synchronous part is done, so an arriving operation cannot pass it meanwhile; a loop rather
    /// than recursion, so an operation that completes inside `start` only updates the counts.
    private func startWaiters() {
        while true {
            let next = state.withLock { state -> Waiter? in
                guard let next = Self.claimHead(&state) else {
                    state.starting = false
                    return nil
                }
                return next
            }
            guard let next else { return }
            // A waiter cancelled since it was claimed never starts: it gives back its count.
            let started = next.start()
            state.withLock { state in
                if !started { state.finished(next.kind) }
                state.head += 1
                if state.head == state.waiting.count {
                    state.waiting.removeAll(keepingCapacity: true)
                    state.head = 0
                }
            }
        }
    }

    /// The waiter at the head of the queue if it may start now (skipping cancelled ones), counted
    /// as running but left in the queue.
    private static func claimHead(_ state: inout State) -> Waiter? {
        while state.hasWaiters {
            let next = state.waiting[state.head]
            if next.isCancelled {
                state.head += 1
                continue
            }
            guard state.mayStart(next.kind) else { break }
            state.started(next.kind)
            return next
        }
        if state.head == state.waiting.count {
            state.waiting.removeAll(keepingCapacity: true)
            state.head = 0
        }
        return nil
    }

    /// One queued operation: waiting, then started (its task kept so cancellation reaches it), or
    /// cancelled before it started.
    private final class Waiter: Sendable {
        let kind: Kind

        private enum Phase {
            case new
            case waiting(start: @Sendable () -> Task<Void, Never>, cancelled: @Sendable () -> Void)
            case starting
            case started(Task<Void, Never>)
            case cancelled
        }

        private let phase = LockedValue(Phase.new)
        /// A cancel that came while `start` was creating the task.
        private let cancelRequested = Atomic<Bool>(false)

        init(kind: Kind) {
            self.kind = kind
        }

        var isCancelled: Bool {
            phase.withLock { if case .cancelled = $0 { true } else { false } }
        }

        /// Installs the ways to start and to give up; `false` (after calling `cancelled`) when the
        /// task was cancelled already.
        func prepare(
            start: @escaping @Sendable () -> Task<Void, Never>, cancelled: @escaping @Sendable () -> Void
        ) -> Bool {
            let proceed = phase.withLock { phase -> Bool in
                guard case .new = phase else { return false }
                phase = .waiting(start: start, cancelled: cancelled)
                return true
            }
            if !proceed { cancelled() }
            return proceed
        }

        /// Starts the operation; `false` when it was cancelled first and so never starts.
        func start() -> Bool {
            let start = phase.withLock { phase -> (@Sendable () -> Task<Void, Never>)? in
                guard case .waiting(let start, _) = phase else { return nil }
                phase = .starting
                return start
            }
            guard let start else { return false }
            let task = start()
            phase.withLock { $0 = .started(task) }
            if cancelRequested.load(ordering: .acquiring) { task.cancel() }
            return true
        }

        /// What `cancel` does once it has left the lock.
        private enum CancelAction { case none, giveUp(@Sendable () -> Void), cancel(Task<Void, Never>) }

        func cancel() {
            let action = phase.withLock { phase -> CancelAction in
                switch phase {
                case .new:
                    phase = .cancelled
                    return .none
                case .waiting(_, let cancelled):
                    phase = .cancelled
                    return .giveUp(cancelled)
                case .starting:
                    cancelRequested.store(true, ordering: .releasing)
                    return .none
                case .started(let task):
                    return .cancel(task)
                case .cancelled:
                    return .none
                }
            }
            switch action {
            case .none: break
            case .giveUp(let cancelled): cancelled()
            case .cancel(let task): task.cancel()
            }
        }
    }
}

import ChannelBridgeBytes
import ChannelBridgePlatform
import Synchronization

extension MessengerConnection {
    /// Runs `body`, whose calls on this connection from the current task share one cancellation
    /// handler (see `CallScope`): cancelling the task withdraws those still waiting, each with a
    /// CANCEL frame, and fails them with `CancellationError`, as outside the scope.
    ///
    /// ```swift
    /// try await connection.withCallScope {
    ///     for _ in 0..<1_000 { _ = try await channel.invokeMethod("echo", arguments: "ping") }
    /// }
    /// ```
    ///
    /// SPI for the Benchmarks/ package, whose calls are made in one scope.
    @_spi(Benchmarks) public func withCallScope<T: Sendable>(
        isolation: isolated (any Actor)? = #isolation,
        _ body: () async throws -> T
    ) async throws -> T {
        let scope = CallScope()
        state.withLock { state in
            state.callScopeTasks[scope.task, default: 0] += 1
            noteCallScopes(state.callScopeTasks)
        }
        defer {
            state.withLock { state in
                if let open = state.callScopeTasks[scope.task], open > 1 {
                    state.callScopeTasks[scope.task] = open - 1
                } else {
                    state.callScopeTasks[scope.task] = nil
                    if !state.cancelledCallScopeTasks.isEmpty { state.cancelledCallScopeTasks.remove(scope.task) }
                }
                noteCallScopes(state.callScopeTasks)
            }
        }
        return try await withTaskCancellationHandler {
            try await body()
        } onCancel: {
            cancelCalls(in: scope)
        }
    }

    /// Publishes, for `callScopeTaskOfCurrentTask`, how many tasks have a scope open and, when one
    /// has, which. Called under the state lock whenever `callScopeTasks` changes.
    private func noteCallScopes(_ tasks: [UInt: Int]) {
        openCallScopes.store(tasks.count, ordering: .relaxed)
        soleCallScopeTask.store(tasks.count == 1 ? tasks.first!.key : 0, ordering: .relaxed)
    }

    /// The address of the current task when it has a call scope open on this connection, else 0.
    /// No lock unless several tasks have one open: one atomic load when none has, two and the
    /// current task's address when one has, else one hash lookup under the lock. A task compares
    /// equal only with itself; a scope is unregistered before its task can end, so a stale value
    /// never matches another task.
    func callScopeTaskOfCurrentTask() -> UInt {
        let open = openCallScopes.load(ordering: .relaxed)
        guard open > 0 else { return 0 }
        let current = CallScope.currentTaskAddress()
        guard current != 0 else { return 0 }
        if open == 1 { return soleCallScopeTask.load(ordering: .relaxed) == current ? current : 0 }
        return state.withLock { $0.callScopeTasks[current] != nil } ? current : 0
    }

    /// Withdraws the calls of `scope` still waiting for their reply, and has the task's later calls
    /// refused (`register`).
    private func cancelCalls(in scope: CallScope) {
        let (withdrawn, drained) = state.withLock {
            state -> ([(UInt32, UnsafeContinuation<Payload?, any Error>?)], Bool) in
            state.cancelledCallScopeTasks.insert(scope.task)
            let withdrawn = state.pending.removeAll { $0.scopeTask == scope.task }
            for entry in withdrawn { state.noteWithdrawn(entry.call, failure: CancellationError()) }
            return (withdrawn.map { ($0.id, $0.call.continuation) }, state.isDrained)
        }
        for (id, continuation) in withdrawn {
            writeFrame(.cancel(id: id))
            failWithdrawn(continuation, with: CancellationError())
        }
        if drained, !withdrawn.isEmpty { finishDrained() }
    }
}

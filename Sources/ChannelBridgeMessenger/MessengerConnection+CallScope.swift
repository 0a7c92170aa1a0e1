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
    package func withCallScope<T: Sendable>(
        isolation: isolated (any Actor)? = #isolation,
        _ body: () async throws -> T
    ) async throws -> T {
        let scope = CallScope()
        state.withLock { state in
            state.callScopes.append(scope)
            noteCallScopes(state.callScopes)
        }
        defer {
            state.withLock { state in
                state.callScopes.removeAll { $0 === scope }
                noteCallScopes(state.callScopes)
            }
        }
        return try await withTaskCancellationHandler {
            try await body()
        } onCancel: {
            cancelCalls(in: scope)
        }
    }

    /// Publishes, for `callScopeTaskOfCurrentTask`, how many scopes are open and, when one is, its
    /// task. Called under the state lock whenever `callScopes` changes.
    private func noteCallScopes(_ scopes: [CallScope]) {
        openCallScopes.store(scopes.count, ordering: .relaxed)
        soleCallScopeTask.store(scopes.count == 1 ? scopes[0].task : 0, ordering: .relaxed)
    }

    /// The address of the current task when it has a call scope open on this connection, else 0.
    /// No lock unless several scopes are open: one atomic load when none is, two and the current
    /// task's address when one is. A task compares equal only with itself; a scope is unregistered
    /// before its task can end, so a stale value never matches another task.
    func callScopeTaskOfCurrentTask() -> UInt {
        let open = openCallScopes.load(ordering: .relaxed)
        guard open > 0 else { return 0 }
        let current = CallScope.currentTaskAddress()
        guard current != 0 else { return 0 }
        let sole = soleCallScopeTask.load(ordering: .relaxed)
        if open == 1 { return sole == current ? current : 0 }
        return state.withLock { state in state.callScopes.contains { $0.task == current } } ? current : 0
    }

    /// Withdraws the calls of `scope` still waiting for their reply.
    private func cancelCalls(in scope: CallScope) {
        let (withdrawn, drained) = state.withLock { state -> ([(UInt32, UnsafeContinuation<[UInt8]?, any Error>)], Bool) in
            let withdrawn = state.pending.removeAll { $0.scopeTask == scope.task }.map { ($0.id, $0.call.continuation) }
            return (withdrawn, state.isDrained)
        }
        for (id, continuation) in withdrawn {
            writeFrame(.cancel(id: id))
            continuation.resume(throwing: CancellationError())
        }
        if drained, !withdrawn.isEmpty { finishDrained() }
    }
}

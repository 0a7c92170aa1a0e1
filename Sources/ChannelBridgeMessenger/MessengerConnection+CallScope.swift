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
        state.withLock { $0.callScopes.append(scope) }
        openCallScopes.add(1, ordering: .relaxed)
        defer {
            openCallScopes.subtract(1, ordering: .relaxed)
            state.withLock { $0.callScopes.removeAll { $0 === scope } }
        }
        return try await withTaskCancellationHandler {
            try await body()
        } onCancel: {
            cancelCalls(in: scope)
        }
    }

    /// The open call scope of the current task on this connection, if any. One atomic load when
    /// no scope is open.
    func callScopeOfCurrentTask() -> CallScope? {
        guard openCallScopes.load(ordering: .relaxed) > 0 else { return nil }
        return state.withLock { state in state.callScopes.first { $0.isCurrentTask } }
    }

    /// Withdraws the calls of `scope` still waiting for their reply.
    private func cancelCalls(in scope: CallScope) {
        let (withdrawn, drained) = state.withLock { state -> ([(UInt32, UnsafeContinuation<[UInt8]?, any Error>)], Bool) in
            let withdrawn = state.pending.removeAll { $0.scope === scope }.map { ($0.id, $0.call.continuation) }
            return (withdrawn, state.isDrained)
        }
        for (id, continuation) in withdrawn {
            writeFrame(.cancel(id: id))
            continuation.resume(throwing: CancellationError())
        }
        if drained, !withdrawn.isEmpty { finishDrained() }
    }
}

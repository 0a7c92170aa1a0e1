/// Runs `body`, cancelling it and throwing `onTimeout()` when it has not finished within `timeout`.
///
/// Cancelling `body` is what withdraws a request: the messenger sends CANCEL when the task that
/// awaits a reply is cancelled.
func withTimeout<T: Sendable>(
    _ timeout: Duration,
    onTimeout: @escaping @Sendable () -> any Error,
    _ body: @escaping @Sendable () async throws -> T
) async throws -> T {
    return try await withThrowingTaskGroup(of: TimeoutOutcome<T>.self) { group in
        group.addTask { .finished(try await body()) }
        group.addTask {
            try await Task.sleep(for: timeout)
            return .timedOut
        }
        defer { group.cancelAll() }
        // The first child to finish decides; `defer` cancels the other and the group awaits it.
        switch try await group.next() {
        case .finished(let value)?: return value
        case .timedOut?, nil: throw onTimeout()
        }
    }
}

private enum TimeoutOutcome<T: Sendable>: Sendable {
    case finished(T)
    case timedOut
}

import Synchronization
import Testing

struct HangGuardExpired: Error, CustomStringConvertible {
    let seconds: Int
    var description: String { "hang guard: no result within \(seconds) s" }
}

/// Runs `body`, failing with `HangGuardExpired` if it has not finished in `seconds`: a guard
/// against hangs only, never a speed assertion.
@discardableResult
func withHangGuard<T: Sendable>(seconds: Int = 30, _ body: @escaping @Sendable () async throws -> T) async throws -> T {
    try await withThrowingTaskGroup(of: T?.self) { group in
        group.addTask { try await body() }
        group.addTask {
            try? await Task.sleep(for: .seconds(seconds))
            return nil
        }
        defer { group.cancelAll() }
        guard let first = try await group.next(), let value = first else { throw HangGuardExpired(seconds: seconds) }
        return value
    }
}

/// Collects values pushed from handlers so that a test can wait for them, in order.
final class Inbox<Value: Sendable>: Sendable {
    private struct State {
        var values: [Value] = []
        var waiter: CheckedContinuation<Value, Never>?
    }

    private let state = Mutex(State())

    func put(_ value: Value) {
        let waiter = state.withLock { state -> CheckedContinuation<Value, Never>? in
            if let waiter = state.waiter {
                state.waiter = nil
                return waiter
            }
            state.values.append(value)
            return nil
        }
        waiter?.resume(returning: value)
    }

    /// The next value; one reader at a time, guarded against hangs by the caller.
    func next() async -> Value {
        await withCheckedContinuation { continuation in
            let value = state.withLock { state -> Value? in
                if !state.values.isEmpty { return state.values.removeFirst() }
                state.waiter = continuation
                return nil
            }
            if let value { continuation.resume(returning: value) }
        }
    }

    /// Values received and not yet taken.
    var waiting: [Value] {
        state.withLock { $0.values }
    }
}

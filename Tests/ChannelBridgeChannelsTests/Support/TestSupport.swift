import ChannelBridgeCodec
import Synchronization
import Testing

/// Bytes from hex written with optional spaces: `hex("07 04 65786974 00")`.
func hex(_ text: String) -> [UInt8] {
    // Test literals are fixed text; a typo should fail loudly.
    try! Hex.decode(text.filter { !$0.isWhitespace })
}

func utf8(_ text: String) -> [UInt8] { Array(text.utf8) }

struct HangGuardExpired: Error, CustomStringConvertible {
    let seconds: Int
    var description: String { "hang guard: no result within \(seconds) s" }
}

/// Runs `body`, failing with `HangGuardExpired` if it has not finished in `seconds`. A guard against
/// hangs only: no test asserts how fast anything is.
@discardableResult
func withHangGuard<T: Sendable>(seconds: Int = 30, _ body: @escaping @Sendable () async throws -> T) async throws -> T {
    let race = Race<T>()
    return try await withCheckedThrowingContinuation { continuation in
        race.start(continuation, seconds: seconds, body)
    }
}

/// The state of one `withHangGuard`: whichever of the body and the timer ends first resumes the
/// caller and cancels the other.
private final class Race<T: Sendable>: Sendable {
    private struct State {
        var continuation: CheckedContinuation<T, any Error>?
        var work: Task<Void, Never>?
        var timer: Task<Void, Never>?
    }

    private let state = Mutex(State())

    func start(_ continuation: CheckedContinuation<T, any Error>, seconds: Int,
               _ body: @escaping @Sendable () async throws -> T) {
        state.withLock { state in
            state.continuation = continuation
            state.work = Task {
                let result: Result<T, any Error>
                do { result = .success(try await body()) } catch { result = .failure(error) }
                self.finish(result)
            }
            state.timer = Task {
                try? await Task.sleep(for: .seconds(seconds))
                guard !Task.isCancelled else { return }
                self.finish(.failure(HangGuardExpired(seconds: seconds)))
            }
        }
    }

    private func finish(_ result: Result<T, any Error>) {
        let (continuation, work, timer) = state.withLock { state in
            defer { state.continuation = nil }
            return (state.continuation, state.work, state.timer)
        }
        guard let continuation else { return }
        work?.cancel()
        timer?.cancel()
        continuation.resume(with: result)
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

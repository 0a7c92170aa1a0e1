import ChannelBridgePlatform

/// Runs `body`, failing with `HangGuardExpired` instead of hanging if it has not finished after
/// `seconds` (times `HangGuardScale.factor`). A guard against hangs only: nothing here asserts how
/// fast anything is. Short, so that a hang is a quick failure naming the test and where it hung.
///
/// ```swift
/// @Test func repliesArrive() async throws {
///     try await withHangGuard {
///         #expect(try await channel.invokeMethod("ping") == "pong")
///     }
/// }
/// ```
///
/// Unlike a task group, the guard does not wait for a body that ignores cancellation: when the time
/// is up the caller resumes at once and the body is cancelled and left behind.
@discardableResult
public func withHangGuard<T: Sendable>(
    seconds: Int = HangGuardScale.defaultSeconds, function: String = #function, fileID: String = #fileID,
    line: Int = #line, _ body: @escaping @Sendable () async throws -> T
) async throws -> T {
    let race = HangGuardRace<T>()
    let scaled = HangGuardScale.scaled(seconds)
    let place = "\(function) (\(fileID):\(line))"
    return try await withCheckedThrowingContinuation { continuation in
        race.start(continuation, seconds: scaled, place: place, body)
    }
}

/// Whichever of the body and the timer ends first resumes the caller and cancels the other.
private final class HangGuardRace<T: Sendable>: Sendable {
    private struct State {
        var continuation: CheckedContinuation<T, any Error>?
        var work: Task<Void, Never>?
        var timer: Task<Void, Never>?
    }

    private let state = LockedValue(State())

    func start(
        _ continuation: CheckedContinuation<T, any Error>, seconds: Int, place: String,
        _ body: @escaping @Sendable () async throws -> T
    ) {
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
                self.finish(.failure(HangGuardExpired(seconds: seconds, place: place)))
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

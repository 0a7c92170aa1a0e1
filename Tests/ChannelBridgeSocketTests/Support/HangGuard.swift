import Synchronization

struct HangGuardExpired: Error, CustomStringConvertible {
    var seconds: Double
    var description: String { "hang guard: the test body did not finish within \(seconds) s" }
}

private final class HangGuardRace<T: Sendable>: Sendable {
    private let continuation = Mutex<CheckedContinuation<T, any Error>?>(nil)
    let work = Mutex<Task<Void, Never>?>(nil)
    let timer = Mutex<Task<Void, Never>?>(nil)

    func arm(_ continuation: CheckedContinuation<T, any Error>) {
        self.continuation.withLock { $0 = continuation }
    }

    /// Resumes the waiting test once; false if it was already resumed.
    func finish(_ result: Result<T, any Error>) -> Bool {
        guard let continuation = continuation.withLock({ state in defer { state = nil }; return state }) else {
            return false
        }
        continuation.resume(with: result)
        return true
    }
}

/// Runs `body`, failing instead of hanging if it has not finished after `seconds`. The limit is a
/// generous guard against hangs, never a speed assertion.
func withHangGuard<T: Sendable>(
    seconds: Double = 30,
    _ body: @escaping @Sendable () async throws -> T
) async throws -> T {
    let race = HangGuardRace<T>()
    defer { race.timer.withLock { $0?.cancel() } }
    return try await withCheckedThrowingContinuation { continuation in
        race.arm(continuation)
        let work = Task {
            do { _ = race.finish(.success(try await body())) } catch { _ = race.finish(.failure(error)) }
        }
        race.work.withLock { $0 = work }
        let timer = Task {
            do { try await Task.sleep(for: .seconds(seconds)) } catch { return }
            if race.finish(.failure(HangGuardExpired(seconds: seconds))) { race.work.withLock { $0?.cancel() } }
        }
        race.timer.withLock { $0 = timer }
    }
}

/// Parses hex text, ignoring spaces and line breaks.
func bytes(hex: String) -> [UInt8] {
    let digits = hex.filter { !$0.isWhitespace }.map { $0.hexDigitValue! }
    precondition(digits.count % 2 == 0, "odd hex digit count")
    return stride(from: 0, to: digits.count, by: 2).map { UInt8(digits[$0] << 4 | digits[$0 + 1]) }
}

/// Polls `condition` until it holds; the hang guard around the test bounds it.
func eventually(_ condition: () -> Bool) async {
    while !condition() {
        try? await Task.sleep(for: .milliseconds(2))
    }
}

/// Polls `condition` for up to `seconds`; false if it never held. For conditions that other
/// tests running at the same time could hold up, so that the test can report what it saw.
func settles(within seconds: Double = 20, _ condition: () -> Bool) async -> Bool {
    let deadline = ContinuousClock.now + .seconds(seconds)
    while !condition() {
        if ContinuousClock.now > deadline { return false }
        try? await Task.sleep(for: .milliseconds(5))
    }
    return true
}

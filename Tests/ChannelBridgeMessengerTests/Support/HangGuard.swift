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

func hexString(_ bytes: [UInt8], separator: String = "") -> String {
    bytes.map { byte in
        let digits = Array("0123456789abcdef")
        return String([digits[Int(byte >> 4)], digits[Int(byte & 0xF)]])
    }.joined(separator: separator)
}

/// A fixed-seed generator (SplitMix64) so that "random" splits are the same on every run.
struct SeededGenerator: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

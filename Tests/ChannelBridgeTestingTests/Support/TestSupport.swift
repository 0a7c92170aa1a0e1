import ChannelBridgeCodec
import Synchronization
import Testing

/// Bytes from hex written with optional spaces: `hex("07 04 65786974 00")`.
func hex(_ text: String) -> [UInt8] {
    // Test literals are fixed text; a typo should fail loudly.
    try! Hex.decode(text.filter { !$0.isWhitespace })
}

func utf8(_ text: String) -> [UInt8] { Array(text.utf8) }

/// A Standard-codec string value written by hand (lengths under 254): tag 7, length, UTF-8.
func standardString(_ text: String) -> [UInt8] {
    precondition(text.utf8.count < 254)
    return [0x07, UInt8(text.utf8.count)] + utf8(text)
}

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

/// Values appended from handlers, read by the test afterwards.
final class Collected<Value: Sendable>: Sendable {
    private let values = Mutex<[Value]>([])

    func append(_ value: Value) {
        values.withLock { $0.append(value) }
    }

    var all: [Value] {
        values.withLock { $0 }
    }
}

import Foundation
import Synchronization

/// Buffered standard output for the benchmark's table and JSON, flushed after each scenario so a
/// long run shows its progress.
package enum BenchOutput {
    private static let buffer = LockedBuffer()

    package static func line(_ text: String) {
        buffer.append(text + "\n")
    }

    package static func flush() {
        let text = buffer.take()
        guard !text.isEmpty else { return }
        BenchSystem.writeStandardOutput(text)
    }

    package static func error(_ text: String) {
        flush()
        BenchSystem.writeStandardError(line: text)
    }
}

private final class LockedBuffer: Sendable {
    private let text = Mutex("")

    func append(_ more: String) { text.withLock { $0 += more } }

    func take() -> String {
        text.withLock { text in
            defer { text = "" }
            return text
        }
    }
}

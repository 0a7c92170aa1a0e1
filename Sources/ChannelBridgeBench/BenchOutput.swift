import ChannelBridgePlatform
import Foundation

/// Buffered standard output for the benchmark's table and JSON, flushed after each scenario so a
/// long run shows its progress.
enum BenchOutput {
    private static let buffer = LockedBuffer()

    static func line(_ text: String) {
        buffer.append(text + "\n")
    }

    static func flush() {
        let text = buffer.take()
        guard !text.isEmpty else { return }
        var bytes = text
        bytes.withUTF8 { StandardStream.output.write(UnsafeRawBufferPointer($0)) }
    }

    static func error(_ text: String) {
        flush()
        StandardStream.error.writeLine(text)
    }
}

private final class LockedBuffer: Sendable {
    private let text = ChannelBridgePlatform.LockedValue("")

    func append(_ more: String) { text.withLock { $0 += more } }

    func take() -> String {
        text.withLock { text in
            defer { text = "" }
            return text
        }
    }
}

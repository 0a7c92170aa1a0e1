import ChannelBridgePlatform
import Foundation

/// Buffered standard output for line-per-line streaming (100k lines must not be 100k syscalls),
/// with an explicit flush for interactive protocols.
enum Output {
    nonisolated(unsafe) private static var buffer: [UInt8] = []

    /// Appends a line; call only from one task at a time (commands are sequential).
    static func line(_ text: String) {
        buffer.append(contentsOf: text.utf8)
        buffer.append(0x0A)
        if buffer.count >= 1 << 16 { flush() }
    }

    static func flush() {
        guard !buffer.isEmpty else { return }
        buffer.withUnsafeBytes { StandardStream.output.write($0) }
        buffer.removeAll(keepingCapacity: true)
    }

    static func error(_ text: String) {
        flush()
        StandardStream.error.writeLine(text)
    }

    /// An interactive prompt on stderr, with no newline, after everything printed so far.
    static func prompt(_ text: String) {
        flush()
        var prompt = text
        prompt.withUTF8 { StandardStream.error.write(UnsafeRawBufferPointer($0)) }
    }
}

import Glibc

/// The process's standard output or error, written straight to the descriptor.
package enum StandardStream: Sendable {
    case output
    case error

    /// Writes `line` and a newline with no buffer to flush, resuming after a signal and after a
    /// partial write, so the line leaves whole unless the descriptor fails. A closed pipe (with
    /// SIGPIPE ignored, EPIPE) or another failure loses the line and nothing else.
    package func writeLine(_ line: String) {
        var text = line + "\n"
        text.withUTF8 { write(UnsafeRawBufferPointer($0)) }
    }

    /// Writes all of `bytes`, resuming after a signal and after a partial write; stops at the
    /// first failure.
    package func write(_ bytes: UnsafeRawBufferPointer) {
        let descriptor = self == .output ? STDOUT_FILENO : STDERR_FILENO
        var offset = 0
        while offset < bytes.count {
            let written = Glibc.write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
            if written > 0 {
                offset += written
            } else if written < 0 && errno == EINTR {
                continue
            } else {
                return
            }
        }
    }
}

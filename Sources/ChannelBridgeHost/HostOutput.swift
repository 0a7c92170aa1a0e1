import Glibc

/// Where the host writes its lines: the ready line and the completion record on one side,
/// diagnostics and `--trace` on the other. Each call writes one whole line.
///
/// ```swift
/// let lines = Mutex<[String]>([])
/// let output = HostOutput(standardOutput: { line in lines.withLock { $0.append(line) } },
///                         standardError: { _ in })
/// ```
public struct HostOutput: Sendable {
    public var standardOutput: @Sendable (String) -> Void
    public var standardError: @Sendable (String) -> Void

    public init(standardOutput: @escaping @Sendable (String) -> Void,
                standardError: @escaping @Sendable (String) -> Void) {
        self.standardOutput = standardOutput
        self.standardError = standardError
    }

    /// The process's standard output and error, unbuffered: each line leaves at once, so a parent
    /// reading the pipe sees the ready line as soon as it is printed. A closed pipe loses the line
    /// and nothing else.
    public static let process = HostOutput(
        standardOutput: { line in write(line, to: STDOUT_FILENO) },
        standardError: { line in write(line, to: STDERR_FILENO) })

    /// Writes `line` and a newline straight to the descriptor (no buffer to flush), resuming after
    /// a signal and after a partial write, so the line leaves whole unless the descriptor fails.
    private static func write(_ line: String, to descriptor: Int32) {
        var text = line + "\n"
        text.withUTF8 { bytes in
            var offset = 0
            while offset < bytes.count {
                let written = Glibc.write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
                if written > 0 {
                    offset += written
                } else if written < 0 && errno == EINTR {
                    continue
                } else {
                    return  // A closed pipe (SIGPIPE is ignored, so EPIPE) or another failure: the line is lost.
                }
            }
        }
    }
}

import ChannelBridgePlatform

/// Where the host writes its lines: the ready line and the completion record on one side,
/// diagnostics and `--trace` on the other. Each call writes one whole line. Outside the package a
/// host writes to the process's standard streams (`ExtensionHost.start`'s default); the package's
/// tests and commands give closures of their own, with an initializer that is not public:
///
/// ```swift
/// let lines = Mutex<[String]>([])
/// let output = HostOutput(standardOutput: { line in lines.withLock { $0.append(line) } },
///                         standardError: { _ in })
/// ```
public struct HostOutput: Sendable {
    package var standardOutput: @Sendable (String) -> Void
    package var standardError: @Sendable (String) -> Void

    package init(
        standardOutput: @escaping @Sendable (String) -> Void,
        standardError: @escaping @Sendable (String) -> Void
    ) {
        self.standardOutput = standardOutput
        self.standardError = standardError
    }

    /// The process's standard output and error, unbuffered: each line leaves at once, so a parent
    /// reading the pipe sees the ready line as soon as it is printed. A closed pipe loses the line
    /// and nothing else.
    @usableFromInline package static let process = HostOutput(
        standardOutput: { line in StandardStream.output.writeLine(line) },
        standardError: { line in StandardStream.error.writeLine(line) })
}

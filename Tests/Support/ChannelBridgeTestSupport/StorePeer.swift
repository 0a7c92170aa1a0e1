import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The `channelbridge-store-peer` executable run as a child process: a second user of the store
/// (directly, or through a host's channel). Its stdout lines and exit status are collected for the test.
public final class StorePeer: Sendable {
    public let name: String
    public let lines: Collector<String>
    private let process: Process
    private let input: CloseOnExecPipe
    private let errorLines: Collector<String>
    private let exitStatus: Collector<Int32>

    /// Starts `channelbridge-store-peer COMMAND --data-dir D --group G ARGUMENTS…`.
    public init(_ command: String, dataDirectory: String, group: String, _ arguments: [String] = []) throws {
        name = "peer \(command) \(arguments.joined(separator: " "))"
        lines = Collector(name: name)
        exitStatus = Collector(name: "\(name) exit status")
        errorLines = Collector(name: "\(name) stderr")
        process = Process()
        let executable = try ProcessRunner.locate("channelbridge-store-peer", overriddenBy: "CHANNELBRIDGE_STORE_PEER")
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = [command, "--data-dir", dataDirectory, "--group", group] + arguments
        input = try CloseOnExecPipe()
        let output = try CloseOnExecPipe()
        let errors = try CloseOnExecPipe()
        process.standardInput = input.fileHandleForReading
        process.standardOutput = output.fileHandleForWriting
        process.standardError = errors.fileHandleForWriting
        let exitStatus = exitStatus
        process.terminationHandler = { process in
            exitStatus.append(process.terminationStatus)
            exitStatus.finish()
        }
        try ProcessRunner.start(process)
        try input.fileHandleForReading.close()
        try output.fileHandleForWriting.close()
        try errors.fileHandleForWriting.close()
        let lines = lines
        Self.readLines(from: output.fileHandleForReading) {
            lines.append($0)
        } atEnd: {
            lines.finish()
        }
        let errorLines = errorLines
        Self.readLines(from: errors.fileHandleForReading) {
            errorLines.append($0)
        } atEnd: {
            errorLines.finish()
        }
    }

    /// A peer left running by a failed test must not outlive it.
    deinit {
        if process.isRunning { kill(SIGKILL) }
    }

    public var processIdentifier: Int32 { process.processIdentifier }
    /// Whether the process has ended (and its exit status been collected).
    public var hasExited: Bool { !exitStatus.all.isEmpty }
    public var standardError: String { errorLines.all.joined(separator: "\n") }

    /// Lines that start with `acked `, without that prefix.
    public var acknowledged: [String] {
        lines.all.compactMap { $0.hasPrefix("acked ") ? String($0.dropFirst(6)) : nil }
    }

    /// Waits for a line equal to `line`.
    public func waitForLine(_ line: String) async throws {
        try await lines.wait(for: "the line '\(line)'") { $0.contains(line) }
    }

    /// Releases a peer started with `--gate`.
    public func openGate() throws {
        try input.fileHandleForWriting.write(contentsOf: Data("go\n".utf8))
    }

    public func kill(_ signal: Int32) {
        _ = Glibc.kill(process.processIdentifier, signal)
    }

    /// Waits for the process to end and returns its termination status (the signal number when a
    /// signal ended it). Past the hang guard the process is killed and the wait fails.
    public func waitForExit(hangGuard: Duration = .seconds(60)) async throws -> Int32 {
        do {
            return try await exitStatus.first(1, hangGuard: hangGuard)[0]
        } catch {
            kill(SIGKILL)
            throw HangGuardExpired(description: "\(name) did not exit: \(error); stderr: \(standardError)")
        }
    }

    /// Waits for a normal exit with status 0, failing with the peer's stderr otherwise.
    /// Waits for exit status 0 and for the end of stdout, so every line the peer printed is in
    /// `lines` (the reader thread may still be draining the pipe when the process has exited).
    public func waitForSuccess() async throws {
        let status = try await waitForExit()
        if status != 0 {
            throw HangGuardExpired(description: "\(name) exited with \(status); stderr: \(standardError)")
        }
        _ = try await lines.waitForEnd()
    }

    /// Reads lines on a dedicated thread: `availableData` blocks, which the cooperative pool must not.
    private static func readLines(
        from handle: FileHandle, _ onLine: @escaping @Sendable (String) -> Void,
        atEnd: @escaping @Sendable () -> Void
    ) {
        let thread = Thread {
            var pending = Data()
            while true {
                let chunk = handle.availableData
                if chunk.isEmpty { break }
                pending.append(chunk)
                while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                    onLine(String(decoding: pending[pending.startIndex..<newline], as: UTF8.self))
                    pending.removeSubrange(pending.startIndex...newline)
                }
            }
            atEnd()  // a last line without its newline was cut off mid-write: not a line
        }
        thread.start()
    }
}

import Foundation

/// A built product of this package that serves until its standard input ends (`channelbridge-rtt-driver
/// serve` and `serve-host`): its ready line, then its exit once `stop()` closes its input. Every
/// blocking read runs on a thread of its own; a child that outlives `limit` is killed, and what it
/// printed says where it stopped.
// @unchecked: every stored property is set once in init; Process is used only for its thread-safe
// calls (isRunning, terminate, waitUntilExit, the termination status after the wait).
final class ServerProcess: @unchecked Sendable {
    struct Exit: Sendable {
        var status: Int32
        var bySignal: Bool
        var stdoutLines: [String]
        var stderr: String
    }

    struct EndedBeforeReady: Error, CustomStringConvertible {
        var description: String
    }

    private let process: Process
    private let input: FileHandle
    private let output: FileHandle
    private let error: FileHandle
    private let guardTimer: DispatchWorkItem

    init(_ product: String, _ arguments: [String], limit: TimeInterval = 120) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try BenchProcess.path(of: product))
        process.arguments = arguments
        let stdin = try CloseOnExecPipe(), stdout = try CloseOnExecPipe(), stderr = try CloseOnExecPipe()
        process.standardInput = stdin.fileHandleForReading
        process.standardOutput = stdout.fileHandleForWriting
        process.standardError = stderr.fileHandleForWriting
        try process.run()
        try stdin.fileHandleForReading.close()
        try stdout.fileHandleForWriting.close()
        try stderr.fileHandleForWriting.close()
        self.process = process
        input = stdin.fileHandleForWriting
        output = stdout.fileHandleForReading
        error = stderr.fileHandleForReading
        guardTimer = DispatchWorkItem { if process.isRunning { process.terminate() } }
        DispatchQueue.global().asyncAfter(deadline: .now() + limit, execute: guardTimer)
    }

    /// The first line the child prints (without its newline); throws if its output ends first.
    func readyLine() async throws -> String {
        let output = output
        return try await Self.onThread {
            var line = Data()
            while true {
                let byte = output.readData(ofLength: 1)
                guard let first = byte.first else {
                    throw EndedBeforeReady(
                        description:
                            "the child ended its output before a line: '\(String(decoding: line, as: UTF8.self))'")
                }
                if first == 0x0A { return String(decoding: line, as: UTF8.self) }
                line.append(first)
            }
        }
    }

    /// Closes the child's input, and returns how it exited with the rest of what it printed (the
    /// ready line already read is not in `stdoutLines`).
    func stop() async throws -> Exit {
        try input.close()
        return try await Self.onThread { [self] in
            let rest = output.readDataToEndOfFile()
            let errorText = error.readDataToEndOfFile()
            process.waitUntilExit()
            guardTimer.cancel()
            return Exit(
                status: process.terminationStatus, bySignal: process.terminationReason == .uncaughtSignal,
                stdoutLines: String(decoding: rest, as: UTF8.self).split(separator: "\n").map(String.init),
                stderr: String(decoding: errorText, as: UTF8.self))
        }
    }

    private static func onThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            Thread { continuation.resume(with: Result(catching: body)) }.start()
        }
    }
}

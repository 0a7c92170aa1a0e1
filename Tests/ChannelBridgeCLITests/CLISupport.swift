import ChannelBridgeTestSupport
import Foundation
import Testing

/// A host for the CLI to talk to, on a fresh directory, stopped and removed afterwards.
struct LiveHost {
    let directory: TestDirectory
    let host: HostProcess

    static func start(_ arguments: [String] = []) async throws -> LiveHost {
        let directory = try TestDirectory()
        let host = try HostProcess(["--socket", directory.socket, "--data-dir", directory.data] + arguments)
        #expect(try await host.readyLine() == "ready \(directory.socket)")
        return LiveHost(directory: directory, host: host)
    }

    var socket: String { directory.socket }

    /// Runs `channelbridge ARGUMENTS --socket <this host>`.
    func channelbridge(_ arguments: [String], stdin: String = "") async throws -> ProcessRunner.Outcome {
        try await ProcessRunner.runOnThread("channelbridge", arguments + ["--socket", socket], stdin: stdin)
    }

    /// Ends the host (SIGTERM if it is still serving) and removes its directory.
    func stop() async -> HostProcess.Exit {
        host.send(signal: SIGTERM)
        let exit = await host.waitForExit()
        directory.remove()
        return exit
    }
}

/// A `channelbridge-test-peer listen` child serving `peer/events` (and the rest of its session) on
/// `socket`, past its ready line; it exits when `stop()` closes its stdin.
struct ListeningTestPeer {
    let process: Process
    private let input: CloseOnExecPipe

    init(socket: String) throws {
        process = Process()
        process.executableURL = URL(fileURLWithPath: ProcessRunner.path(of: "channelbridge-test-peer"))
        process.arguments = ["listen", socket]
        input = try CloseOnExecPipe()
        let output = try CloseOnExecPipe()
        process.standardInput = input.fileHandleForReading
        process.standardOutput = output.fileHandleForWriting
        try ProcessRunner.start(process)
        try input.fileHandleForReading.close()
        try output.fileHandleForWriting.close()
        #expect(String(decoding: output.fileHandleForReading.availableData, as: UTF8.self) == "ready\n")
    }

    func stop() {
        try? input.fileHandleForWriting.close()
        process.waitUntilExit()
    }
}

/// A child process driven line by line, as a person at a terminal drives it: lines written to its
/// standard input when the test decides, its standard output and error read as lines as they come
/// (each on a thread of its own), its exit awaited.
final class LineDrivenChild: Sendable {
    let process: Process
    /// Standard output's lines, then nil at its end.
    let stdout = Inbox<String?>()
    /// Standard error's lines, then nil at its end.
    let stderr = Inbox<String?>()
    private let input: FileHandle?
    private let exited = Inbox<Int32>()

    /// Starts `executable` (a path); `stdin` replaces the pipe the test writes to (a terminal).
    init(
        _ executable: String, _ arguments: [String], environment: [String: String]? = nil,
        currentDirectory: String? = nil, stdin: FileHandle? = nil
    ) throws {
        process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        if let environment { process.environment = environment }
        if let currentDirectory { process.currentDirectoryURL = URL(fileURLWithPath: currentDirectory) }
        let inputPipe = stdin == nil ? try CloseOnExecPipe() : nil
        let output = try CloseOnExecPipe(), errors = try CloseOnExecPipe()
        process.standardInput = stdin ?? inputPipe!.fileHandleForReading
        process.standardOutput = output.fileHandleForWriting
        process.standardError = errors.fileHandleForWriting
        let exited = self.exited
        process.terminationHandler = { exited.put($0.terminationStatus) }
        try ProcessRunner.start(process)
        try inputPipe?.fileHandleForReading.close()
        try output.fileHandleForWriting.close()
        try errors.fileHandleForWriting.close()
        input = inputPipe?.fileHandleForWriting
        Self.readLines(output.fileHandleForReading, into: stdout)
        Self.readLines(errors.fileHandleForReading, into: stderr)
    }

    /// Writes `text` and a newline to standard input.
    func send(_ line: String) {
        // Throwing form: the plain one traps on EPIPE once the child is gone.
        try? input?.write(contentsOf: Data((line + "\n").utf8))
    }

    /// Closes standard input: the end of input.
    func closeInput() {
        try? input?.close()
    }

    /// The exit status, once the process has ended.
    func status() async -> Int32 {
        let status = await exited.next()
        exited.put(status)
        return status
    }

    /// Every line left on `inbox` up to its end.
    static func rest(of inbox: Inbox<String?>) async -> [String] {
        var lines: [String] = []
        while let line = await inbox.next() { lines.append(line) }
        inbox.put(nil)
        return lines
    }

    private static func readLines(_ handle: FileHandle, into inbox: Inbox<String?>) {
        Thread {
            var pending = Data()
            while true {
                let chunk = handle.availableData
                if chunk.isEmpty { break }
                pending.append(chunk)
                while let newline = pending.firstIndex(of: 0x0A) {
                    inbox.put(String(decoding: pending[pending.startIndex..<newline], as: UTF8.self))
                    pending.removeSubrange(pending.startIndex...newline)
                }
            }
            if !pending.isEmpty { inbox.put(String(decoding: pending, as: UTF8.self)) }
            inbox.put(nil)
        }.start()
    }
}

import ChannelBridgePlatform
import Foundation

/// The demo's temporary directory and child processes, all removed by `tearDown`.
final class DemoWorkspace: Sendable {
    let directory: String
    var socket: String { directory + "/host.sock" }
    var dataDirectory: String { directory + "/data" }
    private let children = LockedValue<[Process]>([])

    init() throws {
        // Short, so the socket path stays well inside sun_path's 108 bytes.
        directory = "/tmp/cb-demo-\(Syscalls.processID)-\(UInt32.random(in: 0...UInt32.max))"
        try FileManager.default.createDirectory(
            atPath: directory, withIntermediateDirectories: true,
            attributes: [.posixPermissions: 0o700])
    }

    /// A product built beside this executable.
    static func sibling(_ name: String) throws -> String {
        let here = URL(fileURLWithPath: OwnExecutable.path()).deletingLastPathComponent()
        let path = here.appendingPathComponent(name).path
        guard FileManager.default.isExecutableFile(atPath: path) else {
            throw CommandFailure(
                ExitCode.unavailable, "cannot find \(name) beside channelbridge (\(path)); build it with 'swift build'")
        }
        return path
    }

    func launch(_ executable: String, _ arguments: [String]) throws -> LineReadingProcess {
        let child = try LineReadingProcess(executable: executable, arguments: arguments)
        children.withLock { $0.append(child.process) }
        return child
    }

    /// Starts the host and waits for its `ready` line: the `extension-host` product when it was
    /// built beside `channelbridge`, else the same host as `channelbridge extension-host`.
    func startHost(_ arguments: [String]) async throws -> DemoHost {
        let child =
            if let host = try? Self.sibling("extension-host") {
                try launch(host, arguments)
            } else {
                try launch(OwnExecutable.path(), [HostCommand.name] + arguments)
            }
        let ready = try await child.nextLine()
        guard ready.hasPrefix("ready ") else {
            throw CommandFailure(ExitCode.failure, "the host printed '\(ready)' instead of its ready line")
        }
        return DemoHost(child: child, readyLine: ready)
    }

    /// Starts `channelbridge prefs watch` on the store and waits until it is watching.
    func startContainingApp(_ arguments: [String]) async throws -> LineReadingProcess {
        let child = try launch(OwnExecutable.path(), arguments)
        let notice = try await child.stderr.next(within: .seconds(20), what: "the containing app")
        guard notice.contains("watching") else {
            throw CommandFailure(ExitCode.failure, "the containing app said '\(notice)' instead of watching")
        }
        return child
    }

    func tearDown() {
        for process in children.withLock({ $0 }) where process.isRunning {
            Syscalls.killImmediately(process.processIdentifier)
            process.waitUntilExit()
        }
        try? FileManager.default.removeItem(atPath: directory)
    }
}

/// A child process whose stdout and stderr are read line by line on threads of their own.
final class LineReadingProcess: Sendable {
    let process: Process
    let stdout = LineQueue()
    let stderr = LineQueue()

    init(executable: String, arguments: [String]) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let output = Pipe(), errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        stdout.feed(from: output.fileHandleForReading)
        stderr.feed(from: errors.fileHandleForReading)
        self.process = process
    }

    /// The next stdout line; fails when the process ends first or stays silent for 20 s.
    func nextLine() async throws -> String {
        try await stdout.next(within: .seconds(20), what: "process \(process.processIdentifier)")
    }
}

/// Lines from a pipe, handed to one waiting reader at a time.
final class LineQueue: Sendable {
    private struct State {
        var lines: [String] = []
        var ended = false
        var waiter: CheckedContinuation<String?, Never>?
    }

    private let state = LockedValue(State())

    func feed(from handle: FileHandle) {
        Thread { [self] in
            var buffer = Data()
            while true {
                let chunk = handle.availableData
                if chunk.isEmpty { break }
                buffer.append(chunk)
                while let newline = buffer.firstIndex(of: 0x0A) {
                    push(String(decoding: buffer[buffer.startIndex..<newline], as: UTF8.self))
                    buffer.removeSubrange(buffer.startIndex...newline)
                }
            }
            finish()
        }.start()
    }

    private func push(_ line: String) {
        let waiter = state.withLock { state -> CheckedContinuation<String?, Never>? in
            guard let waiter = state.waiter else {
                state.lines.append(line)
                return nil
            }
            state.waiter = nil
            return waiter
        }
        waiter?.resume(returning: line)
    }

    private func finish() {
        let waiter = state.withLock { state -> CheckedContinuation<String?, Never>? in
            state.ended = true
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume(returning: nil)
    }

    /// The next line, or nil at the end; a cancelled wait answers nil.
    func next() async -> String? {
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let ready = state.withLock { state -> String?? in
                    if !state.lines.isEmpty { return .some(state.lines.removeFirst()) }
                    if state.ended || Task.isCancelled { return .some(nil) }
                    state.waiter = continuation
                    return nil
                }
                if let ready { continuation.resume(returning: ready) }
            }
        } onCancel: {
            let waiter = state.withLock { state -> CheckedContinuation<String?, Never>? in
                defer { state.waiter = nil }
                return state.waiter
            }
            waiter?.resume(returning: nil)
        }
    }

    func next(within limit: Duration, what: String) async throws -> String {
        let line = try await withThrowingTaskGroup(of: String?.self) { group in
            group.addTask { await self.next() }
            group.addTask {
                try await Task.sleep(for: limit)
                throw CommandFailure(ExitCode.failure, "\(what) printed nothing for \(limit)")
            }
            let first = try await group.next()!
            group.cancelAll()
            return first
        }
        guard let line else { throw CommandFailure(ExitCode.failure, "\(what) ended before printing a line") }
        return line
    }
}

/// The host child, past its ready line: then its completion record and exit status.
struct DemoHost: Sendable {
    let child: LineReadingProcess
    let readyLine: String
    var process: Process { child.process }

    func finish() async throws -> (Int32, String) {
        let record = try await child.nextLine()
        let process = child.process
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            Thread {
                process.waitUntilExit()
                continuation.resume()
            }.start()
        }
        return (process.terminationStatus, record)
    }
}

import ChannelBridgePlatform
public import Foundation
import Glibc

/// An `extension-host` child process: its standard output read line by line as it comes (so the
/// test sees the ready line at once), its standard error collected, its exit awaited.
public final class HostProcess: Sendable {
    public struct Exit: Sendable {
        public var status: Int32
        /// True when the process ended by a signal it did not handle (`status` is then the signal).
        public var bySignal: Bool
        public var stdoutLines: [String]
        public var stderr: String
    }

    public struct EndedBeforeReady: Error, CustomStringConvertible {
        public var exit: Exit
        public var description: String {
            "the host exited with \(exit.status) before its ready line; stderr: \(exit.stderr)"
        }
    }

    private struct State {
        var lines: [String] = []
        var partial: [UInt8] = []
        var stdoutClosed = false
        var stderr: [UInt8] = []
        var stderrClosed = false
        var termination: (status: Int32, bySignal: Bool)?
        var lineWaiters: [(count: Int, continuation: CheckedContinuation<Bool, Never>)] = []
        var exitWaiters: [CheckedContinuation<Exit, Never>] = []
    }

    public let arguments: [String]
    private let process: Process
    private let state = LockedValue(State())

    /// Starts `extension-host` (or another host executable built by the package, or the executable
    /// at `product` when it is an absolute path) with `arguments`.
    /// Its standard input is `input` (a `CloseOnExecPipe`'s reading end, which the caller closes
    /// once this returns), else empty. It runs in `currentDirectory` when given.
    public init(
        _ arguments: [String], environment: [String: String]? = nil, product: String = "extension-host",
        input: FileHandle? = nil, currentDirectory: String? = nil
    ) throws {
        let arguments = Self.withForcedIsolation(arguments, product: product)
        self.arguments = arguments
        let process = Process()
        process.executableURL = URL(fileURLWithPath: product.hasPrefix("/") ? product : ProcessRunner.path(of: product))
        process.arguments = arguments
        if let environment { process.environment = environment }
        if let currentDirectory { process.currentDirectoryURL = URL(fileURLWithPath: currentDirectory) }
        let output = try CloseOnExecPipe(), error = try CloseOnExecPipe()
        process.standardOutput = output.fileHandleForWriting
        process.standardError = error.fileHandleForWriting
        process.standardInput = input ?? FileHandle.nullDevice
        self.process = process
        // Not `self`: Foundation's Process keeps its termination handler after the child has
        // exited, so a handler holding this object made a cycle (LeakSanitizer found every
        // HostProcess, its pipes and its state leaked).
        process.terminationHandler = { [state] process in
            let reason = process.terminationReason == .uncaughtSignal
            Self.update(state) { $0.termination = (process.terminationStatus, reason) }
        }
        try ProcessRunner.start(process)
        try output.fileHandleForWriting.close()
        try error.fileHandleForWriting.close()
        read(output.fileHandleForReading) { state, bytes in
            guard let bytes else {
                state.stdoutClosed = true
                if !state.partial.isEmpty { state.lines.append(String(decoding: state.partial, as: UTF8.self)) }
                state.partial = []
                return
            }
            for byte in bytes {
                if byte == UInt8(ascii: "\n") {
                    state.lines.append(String(decoding: state.partial, as: UTF8.self))
                    state.partial = []
                } else {
                    state.partial.append(byte)
                }
            }
        }
        read(error.fileHandleForReading) { state, bytes in
            if let bytes { state.stderr += bytes } else { state.stderrClosed = true }
        }
    }

    public var pid: Int32 { process.processIdentifier }

    /// A test that ends early (a failed `#require`, a thrown error) must not leave its host
    /// running: one still running when the last reference goes is killed.
    deinit {
        if process.isRunning { Glibc.kill(process.processIdentifier, SIGKILL) }
    }

    /// The environment variable that runs every host this type starts with session isolation
    /// (`CHANNELBRIDGE_TEST_ISOLATION=session swift test`), so that the whole suite can be run
    /// with isolation on (Docs/testing.md). Read only here: the products never see it.
    public static let isolationVariable = "CHANNELBRIDGE_TEST_ISOLATION"

    /// Whether `isolationVariable` asks for isolation: for the few tests that cannot hold with it,
    /// each disabled then with its reason (`.disabled(if: HostProcess.isolationForced, "…")`).
    public static var isolationForced: Bool { ProcessInfo.processInfo.environment[isolationVariable] == "session" }

    /// The products built on `ExtensionHostCommand.main(plugins:)`, which take `--isolation
    /// session`. The others (`pigeon-api-example`, `channelbridge`, the test peers) serve
    /// without an extension host's options and are started as asked.
    public static let isolatingProducts: Set<String> = [
        "extension-host", "isolation-test-host", "flutter-style-plugin-example", "greeter-host-example",
        "pigeon-host-example",
    ]

    /// `arguments` after `--isolation session` when `isolationVariable` is `session`, the product
    /// takes it, and the arguments name no isolation of their own. First, so that a test's last
    /// option without its value (`--socket`) is still the last one.
    public static func withForcedIsolation(_ arguments: [String], product: String) -> [String] {
        guard isolationForced, isolatingProducts.contains((product as NSString).lastPathComponent),
            !arguments.contains(where: { $0 == "--isolation" || $0.hasPrefix("--isolation=") })
        else { return arguments }
        return ["--isolation", "session"] + arguments
    }

    /// Waits for the first line on standard output, which must be the ready line.
    public func readyLine() async throws -> String {
        guard let line = await line(0) else { throw EndedBeforeReady(exit: await waitForExit()) }
        return line
    }

    /// Waits for line `index` (from 0) of standard output; `nil` when output ended before it.
    public func line(_ index: Int) async -> String? {
        let ready = await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
            let answer = state.withLock { state -> Bool? in
                if state.lines.count > index { return true }
                if state.stdoutClosed { return false }
                state.lineWaiters.append((index + 1, continuation))
                return nil
            }
            if let answer { continuation.resume(returning: answer) }
        }
        return ready ? state.withLock { $0.lines[index] } : nil
    }

    /// Waits until the process has exited and both its pipes are drained.
    public func waitForExit() async -> Exit {
        await withCheckedContinuation { continuation in
            let exit = state.withLock { state -> Exit? in
                if let exit = Self.exit(of: state) { return exit }
                state.exitWaiters.append(continuation)
                return nil
            }
            if let exit { continuation.resume(returning: exit) }
        }
    }

    public func send(signal: Int32) {
        _ = kill(process.processIdentifier, signal)
    }

    private static func exit(of state: State) -> Exit? {
        guard let termination = state.termination, state.stdoutClosed, state.stderrClosed else { return nil }
        return Exit(
            status: termination.status, bySignal: termination.bySignal, stdoutLines: state.lines,
            stderr: String(decoding: state.stderr, as: UTF8.self))
    }

    /// Applies `change`, then resumes the waiters it satisfied.
    private static func update(_ state: LockedValue<State>, _ change: (inout State) -> Void) {
        let (lineWaiters, exitWaiters, exit) = state.withLock { state in
            change(&state)
            var resume: [(CheckedContinuation<Bool, Never>, Bool)] = []
            state.lineWaiters.removeAll { waiter in
                if state.lines.count >= waiter.count { resume.append((waiter.continuation, true)); return true }
                if state.stdoutClosed { resume.append((waiter.continuation, false)); return true }
                return false
            }
            let exit = Self.exit(of: state)
            let exitWaiters = exit == nil ? [] : state.exitWaiters
            if exit != nil { state.exitWaiters = [] }
            return (resume, exitWaiters, exit)
        }
        for (waiter, value) in lineWaiters { waiter.resume(returning: value) }
        if let exit { for waiter in exitWaiters { waiter.resume(returning: exit) } }
    }

    /// Reads `handle` to its end on a thread of its own (never on the concurrency pool), handing
    /// each chunk, then `nil` at the end, to `apply`.
    private func read(_ handle: FileHandle, _ apply: @escaping @Sendable (inout State, [UInt8]?) -> Void) {
        let fd = handle.fileDescriptor
        let state = state
        let thread = Thread {
            var buffer = [UInt8](repeating: 0, count: 65_536)
            while true {
                let count = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
                if count < 0 && errno == EINTR { continue }
                if count <= 0 { break }
                let chunk = Array(buffer[0..<count])
                Self.update(state) { apply(&$0, chunk) }
            }
            withExtendedLifetime(handle) {}
            Self.update(state) { apply(&$0, nil) }
        }
        thread.start()
    }
}

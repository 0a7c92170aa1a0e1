import Foundation

/// A child process the benchmark starts and talks to: the raw C baselines, `channelbridge-bench serve`,
/// the extension host and `channelbridge record`. Every blocking wait (pipes, exit) runs on a thread of its own, never on
/// the Swift concurrency pool.
// @unchecked: properties are set once in init; Process is used only for thread-safe calls (pid, isRunning, terminate, wait).
package final class ChildProcess: @unchecked Sendable {
    /// Where `channelbridge-bench` itself and the products it starts are (they are built side by side).
    static let productsDirectory: URL = {
        URL(fileURLWithPath: BenchSystem.ownExecutablePath()).deletingLastPathComponent()
    }()

    package static func path(of product: String) throws -> String {
        let path = productsDirectory.appendingPathComponent(product).path
        guard FileManager.default.isExecutableFile(atPath: path) else {
            // `channelbridge-bench` depends on its siblings, so SwiftPM builds them with it; this is a
            // copied or half-built folder. Name the configuration this binary was built in: a debug build does not help.
            let configuration = productsDirectory.lastPathComponent == "release" ? " -c release" : ""
            throw BenchError(
                "\(product) is not built beside channelbridge-bench (\(path)); build it with "
                    + "'swift build --package-path Benchmarks\(configuration) --product \(product)'")
        }
        return path
    }

    package let name: String
    private let process: Process
    /// Kept with the process: a pipe's handles close when it is released.
    private let input: Pipe, output: Pipe
    private let stdoutFD: Int32, inputFD: Int32

    /// Starts `product` with `arguments`; its stdin stays open until `closeInput()`, its stderr is
    /// this process's.
    package init(product: String, arguments: [String]) throws {
        name = product
        process = Process()
        process.executableURL = URL(fileURLWithPath: try Self.path(of: product))
        process.arguments = arguments
        input = Pipe()
        output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        try process.run()
        stdoutFD = output.fileHandleForReading.fileDescriptor
        inputFD = input.fileHandleForWriting.fileDescriptor
    }

    package var pid: Int32 { process.processIdentifier }

    /// Reads one line of the child's stdout (without the newline), or throws if the child ends
    /// its output or `timeout` passes first.
    package func readLine(timeout: Duration = .seconds(60)) async throws -> String {
        let (fd, name) = (stdoutFD, self.name)
        return try await Self.onThread("read \(name)") {
            var line: [UInt8] = []
            let deadline = ContinuousClock.now + timeout
            var byte: UInt8 = 0
            while true {
                guard ContinuousClock.now < deadline else {
                    throw BenchError("\(name) printed no complete line within \(timeout)")
                }
                // Short polls so that the deadline is noticed; a line normally comes at once.
                guard BenchSystem.waitReadable(fd, milliseconds: 100) else { continue }
                let count = withUnsafeMutableBytes(of: &byte) { BenchSystem.read(fd, into: $0) }
                if count <= 0 { throw BenchError("\(name) ended its output before printing a line") }
                if byte == 0x0A { return String(decoding: line, as: UTF8.self) }
                line.append(byte)
            }
        }
    }

    /// Reads the rest of stdout and waits for the exit; throws unless the status is 0.
    package func finish() async throws -> String {
        let (fd, name, process) = (stdoutFD, self.name, self.process)
        return try await Self.onThread("wait \(name)") {
            var output: [UInt8] = []
            var chunk = [UInt8](repeating: 0, count: 4096)
            while true {
                let count = chunk.withUnsafeMutableBytes { BenchSystem.read(fd, into: $0) }
                if count <= 0 { break }
                output.append(contentsOf: chunk[0..<count])
            }
            process.waitUntilExit()
            guard process.terminationReason == .exit, process.terminationStatus == 0 else {
                throw BenchError("\(name) failed (status \(process.terminationStatus))")
            }
            return String(decoding: output, as: UTF8.self)
        }
    }

    /// Writes `line` and a newline to the child's stdin (a few bytes into an empty pipe: no wait).
    func writeLine(_ line: String) throws {
        if !Array((line + "\n").utf8).withUnsafeBytes({ BenchSystem.writeAll(inputFD, $0) }) {
            throw BenchError("cannot write to \(name)'s input")
        }
    }

    /// Closes the child's stdin (`channelbridge-bench serve` ends then).
    package func closeInput() {
        try? input.fileHandleForWriting.close()
    }

    /// Sends SIGTERM.
    package func terminate() {
        if process.isRunning { process.terminate() }
    }

    /// Waits for the exit, whatever the status.
    package func waitForExit() async {
        let process = self.process
        _ = try? await Self.onThread("wait \(name)") { process.waitUntilExit() }
    }

    /// Resident memory of the child in MiB (VmRSS from /proc).
    package func residentMegabytes() throws -> Double {
        let status = try String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)
        guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }),
            let kilobytes = Double(line.split(separator: " ").dropFirst().first ?? "")
        else {
            throw BenchError("no VmRSS for \(name) (pid \(pid))")
        }
        return kilobytes / 1024
    }

    /// Runs `body` on a new thread and waits for it without holding a pool thread.
    package static func onThread<T: Sendable>(
        _ name: String, _ body: @escaping @Sendable () throws -> T
    ) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            let thread = Thread { continuation.resume(with: Result(catching: body)) }
            thread.name = name
            thread.start()
        }
    }
}

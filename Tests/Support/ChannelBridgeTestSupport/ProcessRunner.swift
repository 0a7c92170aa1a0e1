public import Foundation

/// Runs a built executable of this package as a child process and collects its output.
public struct ProcessRunner {
    public struct Outcome: Sendable {
        public var status: Int32
        public var stdout: String
        public var stderr: String
    }

    /// The directory holding the package's built products (beside the test bundle).
    public static let productsDirectory: URL = {
        var url = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        while url.path != "/" {
            url.deleteLastPathComponent()
            if FileManager.default.fileExists(atPath: url.appendingPathComponent("channelbridge").path) { return url }
        }
        return URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
    }()

    /// The path of a built executable product.
    public static func path(of product: String) -> String {
        productsDirectory.appendingPathComponent(product).path
    }

    /// Runs the child to its end, blocking the calling thread: never call it on Swift's
    /// cooperative pool (two threads on these machines), whose every other task would wait for
    /// the child. Tests call `run`, which does this on a thread of its own.
    public static func runBlocking(
        _ product: String, _ arguments: [String], stdin: String = "",
        environment: [String: String]? = nil, currentDirectory: URL? = nil
    ) throws -> Outcome {
        let process = Process()
        // A bare name is a built product; an absolute path (e.g. /bin/sh) is used as it is.
        process.executableURL =
            product.hasPrefix("/")
            ? URL(fileURLWithPath: product)
            : productsDirectory.appendingPathComponent(product)
        process.arguments = arguments
        if let environment { process.environment = environment }
        if let currentDirectory { process.currentDirectoryURL = currentDirectory }
        let input = try CloseOnExecPipe(), output = try CloseOnExecPipe(), error = try CloseOnExecPipe()
        process.standardInput = input.fileHandleForReading
        process.standardOutput = output.fileHandleForWriting
        process.standardError = error.fileHandleForWriting
        try start(process)
        try input.fileHandleForReading.close()
        try output.fileHandleForWriting.close()
        try error.fileHandleForWriting.close()
        // Write and read concurrently so large inputs and outputs cannot deadlock on full pipes.
        let writer = Thread {
            // The throwing write: a child may exit without reading its input, and with SIGPIPE
            // ignored the plain `write(_:)` traps on EPIPE (a `try!` inside Foundation).
            try? input.fileHandleForWriting.write(contentsOf: Data(stdin.utf8))
            try? input.fileHandleForWriting.close()
        }
        writer.start()
        let errorData = Locked<Data>(Data())
        let reader = Thread { errorData.set(error.fileHandleForReading.readDataToEndOfFile()) }
        reader.start()
        let outData = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        errorData.waitUntilSet()
        return Outcome(
            status: process.terminationStatus, stdout: String(decoding: outData, as: UTF8.self),
            stderr: String(decoding: errorData.value, as: UTF8.self))
    }
}

/// A value written once by another thread.
public final class Locked<T>: @unchecked Sendable {
    // Invariant: `storage` and `done` are only touched under `lock`.
    private let lock = NSLock()
    private var storage: T
    private var done = false
    /// Signalled once by `set`; `waitUntilSet` passes the signal on, so any number may wait.
    private let setSignal = DispatchSemaphore(value: 0)
    public init(_ value: T) { storage = value }
    public func set(_ value: T) {
        lock.withLock {
            storage = value; done = true
        }
        setSignal.signal()
    }
    public var value: T { lock.withLock { storage } }
    public var isSet: Bool { lock.withLock { done } }
    /// Blocks the calling thread until `set` has run (the synchronous helpers that call it already
    /// block on their child process's exit).
    public func waitUntilSet() {
        setSignal.wait()
        setSignal.signal()
    }
}

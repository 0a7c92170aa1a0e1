import Foundation

/// Runs a built product of this package to its end, with a hang guard: a run that stops making
/// progress is killed after `limit` and reported by its status, instead of hanging the suite.
enum BenchProcess {
    struct Outcome {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    struct ProductNotFound: Error, CustomStringConvertible {
        var description: String
    }

    /// The path of `product`, built beside the test bundle (`swift build --package-path Benchmarks`
    /// puts every product of the package in one directory).
    static func path(of product: String) throws -> String {
        var candidates: [String] = []
        if let exe = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") {
            candidates.append(exe)
        }
        if let exe = Bundle.main.executableURL?.path { candidates.append(exe) }
        candidates.append(CommandLine.arguments[0])
        for candidate in candidates {
            var directory = URL(fileURLWithPath: candidate).deletingLastPathComponent()
            for _ in 0..<4 {
                let path = directory.appendingPathComponent(product).path
                if FileManager.default.isExecutableFile(atPath: path) { return path }
                directory = directory.deletingLastPathComponent()
            }
        }
        throw ProductNotFound(
            description: "\(product) not found near \(candidates); build it "
                + "(swift build --package-path Benchmarks --product \(product))")
    }

    /// `runBlocking` on a thread of its own, so that the child's run never holds a thread of the
    /// cooperative pool (the other tests running meanwhile need it).
    static func run(_ product: String, _ arguments: [String], limit: TimeInterval = 180) async throws -> Outcome {
        try await withCheckedThrowingContinuation { continuation in
            Thread { continuation.resume(with: Result { try runBlocking(product, arguments, limit: limit) }) }.start()
        }
    }

    static func runBlocking(_ product: String, _ arguments: [String], limit: TimeInterval) throws -> Outcome {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try path(of: product))
        process.arguments = arguments
        let output = try CloseOnExecPipe(), error = try CloseOnExecPipe()
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = output.fileHandleForWriting
        process.standardError = error.fileHandleForWriting
        try process.run()
        // This process's copies of the write ends: the reads below end when the child's do.
        try output.fileHandleForWriting.close()
        try error.fileHandleForWriting.close()
        let guardTimer = DispatchWorkItem { if process.isRunning { process.terminate() } }
        DispatchQueue.global().asyncAfter(deadline: .now() + limit, execute: guardTimer)
        let errorRead = DispatchSemaphore(value: 0)
        let errorData = DataBox()
        let reader = Thread {
            errorData.data = error.fileHandleForReading.readDataToEndOfFile()
            errorRead.signal()
        }
        reader.start()
        let outData = output.fileHandleForReading.readDataToEndOfFile()
        errorRead.wait()
        process.waitUntilExit()
        guardTimer.cancel()
        return Outcome(
            status: process.terminationStatus, stdout: String(decoding: outData, as: UTF8.self),
            stderr: String(decoding: errorData.data, as: UTF8.self))
    }

    // @unchecked: `data` is written by the reader thread before it signals the semaphore, and read
    // only after the semaphore is waited for.
    private final class DataBox: @unchecked Sendable {
        var data = Data()
    }
}

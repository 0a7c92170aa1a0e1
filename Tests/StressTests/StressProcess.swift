import ChannelBridgeTestSupport
import Foundation

/// Runs a built product with a hang guard: a run that stops making progress is killed after
/// `limit` and reported, instead of hanging the suite.
enum StressProcess {
    struct Outcome {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    /// `runBlocking` on a thread of its own, so that the child's run never holds a thread of the
    /// cooperative pool (the other tests running meanwhile need it).
    static func run(_ product: String, _ arguments: [String], limit: TimeInterval = 180) async throws -> Outcome {
        try await withCheckedThrowingContinuation { continuation in
            Thread { continuation.resume(with: Result { try runBlocking(product, arguments, limit: limit) }) }.start()
        }
    }

    static func runBlocking(_ product: String, _ arguments: [String], limit: TimeInterval = 180) throws -> Outcome {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: ProcessRunner.path(of: product))
        process.arguments = arguments
        let output = Pipe(), error = Pipe()
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = output
        process.standardError = error
        try process.run()
        let guardTimer = DispatchWorkItem { if process.isRunning { process.terminate() } }
        DispatchQueue.global().asyncAfter(deadline: .now() + limit, execute: guardTimer)
        let errorData = Locked<Data>(Data())
        let reader = Thread { errorData.set(error.fileHandleForReading.readDataToEndOfFile()) }
        reader.start()
        let outData = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guardTimer.cancel()
        errorData.waitUntilSet()
        return Outcome(
            status: process.terminationStatus, stdout: String(decoding: outData, as: UTF8.self),
            stderr: String(decoding: errorData.value, as: UTF8.self))
    }
}

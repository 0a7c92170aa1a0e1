public import Foundation

extension ProcessRunner {
    /// `runBlocking(_:_:stdin:environment:currentDirectory:)` on a thread of its own: the caller suspends
    /// instead of holding a thread of the cooperative pool (two threads on a two-core machine) for as
    /// long as the child runs, so that the other tests running at the same time go on.
    ///
    /// ```swift
    /// let outcome = try await ProcessRunner.runOnThread("channelbridge", ["codec", "encode"], stdin: "1\n")
    /// ```
    public static func runOnThread(
        _ product: String, _ arguments: [String], stdin: String = "",
        environment: [String: String]? = nil,
        currentDirectory: URL? = nil
    ) async throws -> Outcome {
        try await withCheckedThrowingContinuation { continuation in
            Thread {
                continuation.resume(
                    with: Result {
                        try runBlocking(
                            product, arguments, stdin: stdin, environment: environment,
                            currentDirectory: currentDirectory)
                    })
            }.start()
        }
    }
}

/// Suspends until the calling task is cancelled, then throws `CancellationError`: for a handler
/// that must never answer, so that a test sees what happens to a call left waiting. It waits on
/// the cancellation itself, not on a clock.
///
/// ```swift
/// messenger.setMessageHandler(onChannel: "never") { _ in try await untilCancelled(); return nil }
/// ```
public func untilCancelled() async throws {
    // A stream that never yields or finishes: its iteration ends only when the task is cancelled.
    let (stream, continuation) = AsyncStream.makeStream(of: Never.self)
    for await _ in stream {}
    continuation.finish()  // kept alive to here, so the stream cannot end for want of a producer
    throw CancellationError()
}

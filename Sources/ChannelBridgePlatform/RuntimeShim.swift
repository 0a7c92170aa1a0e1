import CChannelBridgeSyscalls

/// Every use of the concurrency runtime's underscored or undeclared API, in one place.
///
/// Two per-call shortcuts rely on it; a toolchain update may change either, and
/// `RuntimeShimTests` pins what they rely on, so that such an update fails a named test instead
/// of a call:
///
/// - `withContinuationInheritingExecutor` makes a call's continuation where the call runs, without
///   the hop to an isolation parameter that the public `withUnsafeThrowingContinuation(isolation:)`
///   makes first (under a task-executor preference every hop takes the runtime's status-record
///   lock);
/// - `currentTaskAddress` reads the current task from the runtime's thread-local, without the
///   unspecialized generic call the public `withUnsafeCurrentTask` goes through.
///
/// Nothing outside this file names `_unsafeInheritExecutor_*` or `cb_current_task`.
package enum RuntimeShim {
    /// Suspends the calling task after handing `body` a continuation, and returns what the
    /// continuation is resumed with (or throws the error it is resumed with).
    ///
    /// `body` runs at once, on the thread and executor the caller runs on, before the task
    /// suspends; the task resumes on the caller's executor (its actor, its task-executor
    /// preference, or the global executor). Inlined into the caller, so the continuation is made
    /// in the caller's own frame: every async function between that frame and the continuation
    /// would cost a hop back on return.
    ///
    /// The continuation must be resumed exactly once.
    @inlinable @inline(__always)
    package nonisolated(nonsending) static func withContinuationInheritingExecutor<T>(
        _ body: (UnsafeContinuation<T, any Error>) -> Void
    ) async throws -> sending T {
        try await _unsafeInheritExecutor_withUnsafeThrowingContinuation(body)
    }

    /// The current task's address, or 0 outside a task: what `withUnsafeCurrentTask` gives, read
    /// straight from the runtime's thread-local (`cb_current_task`, which calls
    /// `swift_task_getCurrent`). Only ever compared: a task keeps its address while it lives, and
    /// two tasks alive at once have different ones.
    package static var currentTaskAddress: UInt { UInt(bitPattern: cb_current_task()) }
}

package import ChannelBridgeBytes
import ChannelBridgePlatform
import Synchronization

/// Calls whose caller waits for the reply by reading the connection itself.
///
/// A task that runs on the connection's reader thread (a socket connection's `ReaderExecutor`)
/// and makes one call at a time would otherwise suspend on a continuation, let the reader read
/// the reply, and be resumed by it as a job on the same thread: the continuation, the runtime's
/// status records and its executor-preference lookups under a lock, on every
/// call. When nothing else waits for the thread, the call instead writes its request and reads
/// and delivers in its own frame until its reply is delivered, then returns without having
/// suspended. Everything read meanwhile is delivered as the reader would deliver it.
///
/// The transport decides when a call may drive (`FrameTransport.canDriveReader`) and stops
/// driving as soon as the thread is needed for anything else (a job queued for it, input held
/// back); the call then waits on a continuation as any other (`awaitDrivenReply`). A cancel or a
/// close from another thread records the call's failure and wakes the driver
/// (`FrameTransport.wakeDrivingReader`), so a driven call ends as promptly as a suspended one.
extension MessengerConnection {
    /// How a driven call stands when `startDrivenRequest` returns.
    package enum DrivenRequest: Sendable {
        /// The call is over: this is its reply (nil: the peer has no handler).
        case replied(Payload?)
        /// The thread was needed before the reply came: the call is still registered, and its
        /// caller waits for it with `awaitDrivenReply`.
        case waiting
    }

    /// Whether a call made here now can wait by driving the reader (`startDrivenRequest`). Only
    /// while a single task has a call scope open: with several (a pipeline of tasks), replies for
    /// the others would keep wanting the thread for their callers.
    @inline(__always)
    package var canDriveReader: Bool {
        openCallScopes.load(ordering: .relaxed) == 1 && transport.canDriveReader
    }

    /// `startRequest` for a caller on the reader thread (`canDriveReader`) inside a call scope:
    /// registers the call and writes its REQUEST, then reads and delivers until the reply comes
    /// or the thread is needed first. Throws what the call failed with (a refusal to send, the
    /// handler's failure, a cancel, the session's end).
    package func startDrivenRequest(
        _ prepared: PreparedRequest, onChannel channel: String, payload: consuming Payload
    ) throws -> DrivenRequest {
        precondition(prepared.scopeTask != 0, "a driven call is cancelled through its call scope")
        switch enrollAndWrite(prepared, onChannel: channel, payload: payload, continuation: nil)
        {
        case .refused(let failure): throw failure
        // With other calls in flight (a pipeline), their replies will want the thread for their
        // callers: wait as they do.
        case .besideOthers: return .waiting
        case .alone: break
        }
        reader.withValue { $0.drivenWaits &+= 1 }
        _ = transport.driveReader(for: self) {
            reader.withValue { $0.drivenReply != nil } || drivenFailed.load(ordering: .relaxed)
        }
        // Switched on, not `get()`: that copied the reply out, a retain and a release of its buffer.
        switch takeDrivenOutcome() {
        case .success(let reply): return .replied(reply)
        case .failure(let error): throw error
        case nil: return .waiting
        }
    }

    /// How many calls have waited by driving the reader (for tests). Read it on the reader
    /// thread only: a task running there, between its calls.
    package var drivenWaitCount: Int { reader.withValue { $0.drivenWaits } }

    /// After `startDrivenRequest` returned `.waiting`: hands `continuation` the call's outcome,
    /// now or when it comes. Called on the reader thread, from the same job, outside any delivery.
    package func awaitDrivenReply(
        _ prepared: PreparedRequest, continuation: UnsafeContinuation<Payload?, any Error>
    ) {
        // No reply can be delivered meanwhile: this thread is the only one that delivers.
        if let outcome = takeDrivenOutcome() {
            continuation.resume(with: outcome)
            return
        }
        let failure = state.withLock { state -> (any Error)? in
            if state.pending.update(prepared.id, { $0.continuation = continuation }) { return nil }
            // Taken out by a cancel or a close since the look above; either recorded why.
            drivenFailed.store(false, ordering: .relaxed)
            defer { state.drivenFailure = nil }
            return state.drivenFailure ?? CancellationError()
        }
        if let failure { continuation.resume(throwing: failure) }
    }

    /// The driven call's outcome, if it has one, taken (so the next driven call starts clean).
    private func takeDrivenOutcome() -> Result<Payload?, any Error>? {
        // Moved out, not copied: a copy retained the reply's buffer and released it again.
        if let reply = reader.withValue({ $0.drivenReply.take() }) { return reply }
        guard drivenFailed.load(ordering: .relaxed) else { return nil }
        return state.withLock { state in
            drivenFailed.store(false, ordering: .relaxed)
            defer { state.drivenFailure = nil }
            return state.drivenFailure.map { .failure($0) }
        }
    }

    /// Fails a call taken out of `pending` by another hand than its reply (a cancel, a close):
    /// resumes its continuation with `error`, or, for the driven call, whose failure
    /// `ConnectionState.noteWithdrawn` recorded in the same lock, lets its driver see it.
    func failWithdrawn(
        _ continuation: UnsafeContinuation<Payload?, any Error>?, with error: @autoclosure () -> any Error
    ) {
        if let continuation { continuation.resume(throwing: error()) } else { endDrivenWait() }
    }

    /// Lets the driver see `state.drivenFailure`, and wakes it if it is blocked.
    private func endDrivenWait() {
        drivenFailed.store(true, ordering: .relaxed)
        transport.wakeDrivingReader()
    }
}

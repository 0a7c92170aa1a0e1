package import ChannelBridgeBytes
import ChannelBridgePlatform
import Synchronization

/// The call path a channel drives itself: `prepareRequest`, then `startRequest` inside
/// a continuation it awaits in its own frame.
extension MessengerConnection {
    /// A request whose checks have passed and whose id is taken, not yet registered or written.
    package struct PreparedRequest: Sendable {
        package let id: UInt32
        /// The current task's call scope on this connection (`CallScope`), or 0 for none.
        package let scopeTask: UInt
        /// The peer is not taking what was already queued: wait for room before registering.
        package let mustWaitForRoom: Bool
    }

    /// The first half of a request, without suspending: checks the channel name and the frame's
    /// size, and takes an id. Then wait for room when asked, and `startRequest` inside a
    /// continuation (or `register`).
    ///
    /// A caller that awaits the reply in its own frame (`MethodChannel.invokeMethod`) saves the
    /// hops back to its executor that every async function in between costs on return; with a
    /// task-executor preference each hop takes the concurrency runtime's status-record lock.
    package func prepareRequest(onChannel channel: String, payloadCount: Int) throws(MessengerError) -> PreparedRequest
    {
        try validate(channel: channel, payloadCount: payloadCount, fixedBodyBytes: 4 + 2 + 1)
        // The id is taken without the state lock, so that a call takes that lock once: ids are
        // 32 bits, and one still in flight 4 billion requests later is refused in `register`.
        let taken = requestIDs.wrappingAdd(1, ordering: .relaxed).newValue
        let id = taken != 0 ? taken : requestIDs.wrappingAdd(1, ordering: .relaxed).newValue
        return PreparedRequest(
            id: id, scopeTask: callScopeTaskOfCurrentTask(),
            mustWaitForRoom: flow?.isWritable == false)
    }

    /// The second half: registers `prepared` for its reply and queues the REQUEST with `payload`,
    /// or resumes `continuation` at once with why it cannot be sent. Outside a call scope the
    /// caller installs a cancellation handler that calls `cancelRequest`. A lent payload
    /// (`Payload.isLent`: a reused encode buffer's first bytes, the rest of it room) of fewer than
    /// `separatePayloadThreshold` bytes lends its storage for the reply once the request is
    /// written: a status-0 reply of up to `lentReplyBufferLimit` bytes comes back in it
    /// (a lent `Payload`), any other as usual. For the reply to be read into it without
    /// a copy of the buffer, the caller keeps no reference to it.
    package func startRequest(
        _ prepared: PreparedRequest, onChannel channel: String, payload: consuming Payload,
        continuation: UnsafeContinuation<Payload?, any Error>
    ) {
        if case .refused(let failure) = enrollAndWrite(
            prepared, onChannel: channel, payload: payload, continuation: continuation)
        {
            continuation.resume(throwing: failure)
        }
    }

    /// `startRequest` for a caller that waits by its continuation or, with none, by driving the
    /// reader (`startDrivenRequest`): registers the call and writes the REQUEST, or returns why it
    /// cannot be sent (and registers nothing).
    func enrollAndWrite(
        _ prepared: PreparedRequest, onChannel channel: String, payload: consuming Payload,
        continuation: UnsafeContinuation<Payload?, any Error>?
    ) -> Enrollment {
        let range = payload.readableRange
        guard !payload.isContiguous || range.count >= Self.separatePayloadThreshold else {
            // One array, the common case: moved out of `payload`, registered, and written straight
            // into the outbound block (see `FrameEncoder.storeRequest`), with no closure around
            // the write to capture it.
            let lent = payload.isLent
            let message = (consume payload).storage
            let lends = lent && message.count <= Self.lentReplyBufferLimit
            let enrollment = enroll(
                prepared, channel: channel, continuation: continuation, replyBuffer: lends ? message : [])
            if case .refused = enrollment { return enrollment }
            let id = prepared.id
            transport.write(
                frameOfLength: FrameEncoder.encodedRequestLength(channel: channel, payloadCount: range.count)
            ) { frame in
                message.withUnsafeBytes {
                    FrameEncoder.storeRequest(
                        id: id, channel: channel, payload: UnsafeRawBufferPointer(rebasing: $0[range]),
                        into: frame)
                }
            }
            return enrollment
        }
        let enrollment = enroll(prepared, channel: channel, continuation: continuation)
        if case .refused = enrollment { return enrollment }
        // A large lent payload goes out of its own array: its buffer, cut to size (in place when
        // only the payload holds it), is not lent on for the reply.
        writeRequest(id: prepared.id, channel: channel, payload: payload.owned())
        return enrollment
    }

    /// Registers request `prepared.id` with `continuation` and writes it. The continuation is
    /// resumed exactly once, by whoever takes entry `id` out of `state.pending` under the lock
    /// (the REPLY, a cancellation, or close), or right here when it is never registered.
    func register(
        _ prepared: PreparedRequest, channel: String, continuation: UnsafeContinuation<Payload?, any Error>,
        writeRequest: (UInt32) -> Void
    ) {
        if case .refused(let failure) = enroll(prepared, channel: channel, continuation: continuation) {
            continuation.resume(throwing: failure)
            return
        }
        writeRequest(prepared.id)
    }

    /// How `enroll` went.
    enum Enrollment {
        /// Entered, the only call in flight: a driven call may wait by driving the reader.
        case alone
        /// Entered beside other calls in flight: their replies will want the reader thread for
        /// their callers, so a driven call waits on a continuation as they do.
        case besideOthers
        /// Not entered: why the call cannot be sent.
        case refused(any Error)
    }

    /// `register`'s first half: enters the call in `state.pending` with `replyBuffer` lent for
    /// its reply, or returns why it cannot be sent (and enters nothing).
    private func enroll(
        _ prepared: PreparedRequest, channel: String, continuation: UnsafeContinuation<Payload?, any Error>?,
        replyBuffer: [UInt8] = []
    ) -> Enrollment {
        let id = prepared.id
        defer {
            // The reader may wait, before a request's body, for the budget: this call's reply
            // may come behind that body, so it reads on (`demandWhileAwaitingCharge`).
            if readerAwaitsBudget.load(ordering: .relaxed) { budgetWake() }
        }
        return state.withLock { state -> Enrollment in
            if let refusal = state.refusalToSend() {
                return .refused(MessengerError(.connectionClosed, refusal, channel: channel))
            }
            // A cancel that came before this found no entry to withdraw; it is seen here. Inside a
            // call scope, its handler has recorded the cancel by the time it could have withdrawn.
            if prepared.scopeTask != 0 {
                if !state.cancelledCallScopeTasks.isEmpty, state.cancelledCallScopeTasks.contains(prepared.scopeTask) {
                    return .refused(CancellationError())
                }
            } else if Task.isCancelled {
                return .refused(CancellationError())
            }
            let call = ConnectionState.PendingCall(
                channel: channel, continuation: continuation, scopeTask: prepared.scopeTask,
                replyBuffer: replyBuffer)
            switch state.pending.insert(call, id: id) {
            case .solo: return .alone
            case .table: return .besideOthers
            case .idInFlight:
                return .refused(
                    MessengerError(.connectionClosed, "request id \(id) is still in flight", channel: channel))
            }
        }
    }

    /// The largest buffer a call lends for its reply (`startRequest`): what a channel keeps
    /// between calls (`EncodeBufferPool.maxKeptCapacity`). A lent buffer is held while the call
    /// is pending, and a reply larger than it (up to this) is read into a new one that the
    /// caller keeps instead.
    @inlinable package static var lentReplyBufferLimit: Int { 16 << 10 }
}

import ChannelBridgePlatform
import Synchronization

extension MessengerConnection {
    /// Does nothing: HELLO goes out when the connection is created, before any other frame.
    @available(*, deprecated, message: "HELLO is sent when the connection is created")
    public func start() {}

    /// Ends the session from this side: sends GOODBYE `code`, sends the replies still owed (when
    /// `waitForOwedReplies`), then closes the transport. Requests still waiting for their replies
    /// fail with `connectionClosed` when the transport closes. Asked for while the frames of one
    /// read are being delivered, it happens once they all have been, so requests that arrived
    /// together with the one that ended the session still get their replies before the GOODBYE.
    public func close(code: GoodbyeCode = .normal, reason: String = "", waitForOwedReplies: Bool = true) {
        let (send, finishNow) = state.withLock { state -> (Bool, Bool) in
            guard state.lifecycle.maySayGoodbye else { return (false, false) }
            // Announced before the batch flag is read (see `inBatch`).
            closeDeferred.store(true, ordering: .sequentiallyConsistent)
            if receivingBatch.load(ordering: .sequentiallyConsistent) {
                state.lifecycle.deferClose(
                    ConnectionLifecycle.DeferredClose(
                        code: code, reason: reason, waitForOwedReplies: waitForOwedReplies))
                return (false, false)
            }
            state.lifecycle.sayGoodbye(code)
            return (true, !waitForOwedReplies || state.inbound.isEmpty)
        }
        guard send else { return }
        writeFrame(.goodbye(code: code, reason: reason))
        if finishNow {
            finish(MessengerError(.connectionClosed, "this side closed the connection (GOODBYE \(code))"))
        }
    }

    /// The peer's requests taken in whose replies are still owed (requests held back unread are
    /// not counted). A host that stops waiting for them at its shutdown deadline reports this.
    package var owedReplyCount: Int { state.withLock { $0.inbound.count } }

    /// From now on, answer every new request with REPLY status 2 carrying `reason` (a host that is
    /// ending does this before its GOODBYE `shuttingDown`). Handlers already running still reply.
    public func refuseNewRequests(reason: String) {
        _ = state.withLock { $0.lifecycle.refuseNewRequests(reason: reason) }
    }

    /// Sends PING and waits for the matching PONG. Throws `connectionClosed` if the session ends
    /// first, `CancellationError` if the calling task is cancelled.
    public func ping() async throws {
        try Task.checkCancellation()
        let token = try state.withLock { state throws(MessengerError) -> UInt64 in
            if let error = state.closeError { throw MessengerError(.connectionClosed, error.message) }
            state.nextPingToken &+= 1
            state.pings[state.nextPingToken] = ConnectionState.Waiter()
            return state.nextPingToken
        }
        try await withTaskCancellationHandler {
            // Safe: resumed exactly once, by whoever takes it out of `state.pings[token]` under the
            // lock (the PONG, the cancel handler, or close), or right here when it is not stored.
            try await withUnsafeThrowingContinuation { (continuation: UnsafeContinuation<Void, any Error>) in
                let failure = state.withLock { state -> (any Error)? in
                    guard var waiter = state.pings[token] else {
                        return MessengerError(.connectionClosed, state.closeError?.message ?? "closed")
                    }
                    if waiter.cancelled {
                        state.pings[token] = nil
                        return CancellationError()
                    }
                    waiter.continuation = continuation
                    state.pings[token] = waiter
                    return nil
                }
                if let failure { continuation.resume(throwing: failure) } else { writeFrame(.ping(token: token)) }
            }
        } onCancel: {
            let continuation = state.withLock { state -> UnsafeContinuation<Void, any Error>? in
                guard var waiter = state.pings[token] else { return nil }
                guard let continuation = waiter.continuation else {
                    waiter.cancelled = true
                    state.pings[token] = waiter
                    return nil
                }
                state.pings[token] = nil
                return continuation
            }
            continuation?.resume(throwing: CancellationError())
        }
    }

    /// Waits for the peer's HELLO. Throws the reason the session ended if it ends first (for a
    /// refused client, code `forbidden`), `CancellationError` if the calling task is cancelled.
    public func waitForPeerHello() async throws -> Frame.Hello {
        try Task.checkCancellation()
        let key = try state.withLock { state throws(MessengerError) -> UInt64? in
            if state.peerHello != nil { return nil }
            if let error = state.closeError { throw error }
            state.nextHelloWaiter &+= 1
            state.helloWaiters[state.nextHelloWaiter] = ConnectionState.Waiter()
            return state.nextHelloWaiter
        }
        guard let key else { return peerHello! }
        return try await withTaskCancellationHandler {
            // Safe: resumed exactly once, by whoever takes it out of `state.helloWaiters[key]` under
            // the lock (the HELLO, the cancel handler, or close), or right here when it is not stored.
            try await withUnsafeThrowingContinuation { (continuation: UnsafeContinuation<Frame.Hello, any Error>) in
                let outcome = state.withLock { state -> Result<Frame.Hello, any Error>? in
                    if let hello = state.peerHello {
                        state.helloWaiters[key] = nil
                        return .success(hello)
                    }
                    guard var waiter = state.helloWaiters[key] else {
                        return .failure(state.closeError ?? MessengerError(.connectionClosed, "closed"))
                    }
                    if waiter.cancelled {
                        state.helloWaiters[key] = nil
                        return .failure(CancellationError())
                    }
                    waiter.continuation = continuation
                    state.helloWaiters[key] = waiter
                    return nil
                }
                if let outcome { continuation.resume(with: outcome) }
            }
        } onCancel: {
            let continuation = state.withLock { state -> UnsafeContinuation<Frame.Hello, any Error>? in
                guard var waiter = state.helloWaiters[key] else { return nil }
                guard let continuation = waiter.continuation else {
                    waiter.cancelled = true
                    state.helloWaiters[key] = waiter
                    return nil
                }
                state.helloWaiters[key] = nil
                return continuation
            }
            continuation?.resume(throwing: CancellationError())
        }
    }

    /// The transport's reading side ended (end of file, or `error`). Ends the session, failing
    /// every pending call at once.
    package func receiveEnd(error: MessengerError? = nil) {
        let cause = state.withLock { state -> MessengerError in
            if let peerGoodbye = state.lifecycle.peerGoodbye { return Self.error(forPeerGoodbye: peerGoodbye) }
            return error ?? MessengerError(.connectionClosed, "the peer closed the connection")
        }
        finish(cause)
    }

    /// Ends the session with `error`: closes the transport (after `goodbye`, if given), fails
    /// every waiter, cancels running handlers and runs the close callbacks. Idempotent.
    func finish(_ error: MessengerError, goodbye: Frame? = nil) {
        guard let closed = state.withLock({ $0.close(with: error) }) else { return }
        // Frames read and not yet delivered never start (wire protocol §4.4): every delivery
        // checks `closeError` first, and the reader drops what it held when it next looks. (The
        // input lock is not taken here: the reader holds it while it blocks in `read`.)
        if let goodbye { writeFrame(goodbye) }
        transport.close()
        for call in closed.pending {
            failWithdrawn(call.continuation, with: Self.closedBeforeReply(channel: call.channel, error))
        }
        for task in closed.inboundTasks { task.cancel() }
        if let requestBudget {
            requestBudget.forget(ObjectIdentifier(self))
            requestBudget.release(closed.charged)
        }
        for ping in closed.pings { ping.resume(throwing: MessengerError(.connectionClosed, error.message)) }
        for waiter in closed.helloWaiters { waiter.resume(throwing: error) }
        for waiter in closed.inputHeldWaiters { waiter.resume() }
        for callback in closed.callbacks { callback(error) }
    }

    /// Ends a session that said goodbye (either side) and has nothing left to wait for.
    func finishDrained() {
        let cause = state.withLock { state -> MessengerError in
            if let peerGoodbye = state.lifecycle.peerGoodbye { return Self.error(forPeerGoodbye: peerGoodbye) }
            let code = state.lifecycle.sentGoodbye ?? .normal
            return MessengerError(.connectionClosed, "this side closed the connection (GOODBYE \(code))")
        }
        finish(cause)
    }

    /// Answers a broken rule with GOODBYE and ends the session.
    func violated(_ violation: ProtocolViolation) {
        let code: MessengerError.Code =
            switch violation.goodbyeCode {
            case .frameTooLarge: .frameTooLarge
            case .unsupportedVersion: .unsupportedVersion
            default: .protocolError
            }
        finish(
            MessengerError(code, "the peer broke the protocol: \(violation.reason)"),
            goodbye: .goodbye(code: violation.goodbyeCode, reason: violation.reason))
    }

    /// The peer did not send a frame it had begun in time (wire protocol §4.10, rule 9): GOODBYE
    /// `frameTimeout`, and the session ends without waiting for the replies it is owed. Called
    /// by the transport's reader, outside a delivery.
    package func frameTimedOut(_ reason: String) {
        finish(
            MessengerError(.frameTimeout, "the peer was too slow: \(reason)"),
            goodbye: .goodbye(code: .frameTimeout, reason: reason))
    }

    static func error(forPeerGoodbye goodbye: ConnectionLifecycle.PeerGoodbye) -> MessengerError {
        let detail = goodbye.reason.isEmpty ? "" : ": \(goodbye.reason)"
        return switch goodbye.code {
        case .forbidden: MessengerError(.forbidden, "the peer refused this connection\(detail)")
        case .tooManyConnections: MessengerError(.tooManyConnections, "the host refused this connection\(detail)")
        case .unsupportedVersion:
            MessengerError(.unsupportedVersion, "the peer does not speak this protocol version\(detail)")
        case .protocolError: MessengerError(.protocolError, "the peer reported a protocol error\(detail)")
        case .frameTooLarge: MessengerError(.frameTooLarge, "the peer refused a frame as too large\(detail)")
        case .frameTimeout:
            MessengerError(
                .frameTimeout,
                "the peer closed the session: a frame from this side did not arrive in full in time\(detail)")
        case .sessionCrashed:
            MessengerError(.connectionClosed, "the process serving this session crashed\(detail)")
        default: MessengerError(.connectionClosed, "the peer said goodbye (\(goodbye.code))\(detail)")
        }
    }
}

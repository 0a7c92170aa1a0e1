import ChannelBridgePlatform
import Synchronization

extension MessengerConnection {
    /// What the transport's reader should do next (wire protocol §4.10). Asked by the one thread
    /// that delivers received bytes, before each read.
    package enum InputDemand: Sendable, Equatable {
        /// Nothing is held back: read as usual.
        case read
        /// Frames are held back. Read on (answers to this side's requests are delivered, the rest
        /// is held in order), but be ready to be woken by `inputMayResume()`.
        case readOrWait
        /// Enough is held back: read nothing until woken by `inputMayResume()` (or a hang-up).
        case wait
        /// What held the frames back is gone: call `resumeHeldInput()`.
        case resume
    }

    /// Whether the reader may read, must wait, or should deliver what it held back.
    package var inputDemand: InputDemand {
        // The common case without a lock: nothing is held.
        guard holdsInput.load(ordering: .relaxed) else { return .read }
        let (first, full) = input.withLock { ($0.first, $0.isHeldFull) }
        guard let first else { return .read }
        let (closed, slotsFull) = state.withLock { ($0.isClosed, $0.handlerSlotsFull) }
        if closed {
            // Held frames of an ended session never start.
            input.withLock { _ = $0.dropAll() }
            holdsInput.store(false, ordering: .relaxed)
            return .read
        }
        let waitsForSlot = first.needsHandlerSlot && slotsFull
        let waitsForRoom = first.needsAnswerRoom && (flow?.isAnswerBacklogged ?? false)
        guard waitsForSlot || waitsForRoom else { return .resume }
        return full ? .wait : .readOrWait
    }

    /// Resumes once a frame of the peer's is held back (at once if one is), or the session ends.
    /// For tests: an event to wait on instead of polling.
    package func waitUntilInputHeld() async {
        // Safe: resumed exactly once, here, by the next hold, or by the end of the session.
        await withUnsafeContinuation { (continuation: UnsafeContinuation<Void, Never>) in
            let now = state.withLock { state -> Bool in
                if holdsInput.load(ordering: .relaxed) || state.isClosed { return true }
                state.inputHeldWaiters.append(continuation)
                return false
            }
            if now { continuation.resume() }
        }
    }

    /// Delivers the frames held back, in order, as far as the limits now allow, then what is
    /// buffered behind them. Called by the reader after `inputMayResume()` woke it.
    package func resumeHeldInput() {
        inBatch {
            state.withLock { $0.holdingForHandlers = false }
            while let held = input.withLock({ $0.first }) {
                switch deliver(held.frame) {
                case .delivered:
                    let empty = input.withLock { input -> Bool in
                        input.removeFirst()
                        return !input.isHolding
                    }
                    if empty { holdsInput.store(false, ordering: .relaxed) }
                case .closed:
                    return
                case .hold(let slot, let room):
                    input.withLock { $0.updateFirst(needsHandlerSlot: slot, needsAnswerRoom: room) }
                    return
                }
            }
            decodeFrames()
        }
    }

    /// Delivers bytes read from the transport. Frames are handled in order as soon as they are
    /// complete; a broken rule ends the session with GOODBYE.
    package func receive(_ bytes: UnsafeRawBufferPointer) {
        guard !bytes.isEmpty else { return }
        input.withLock { $0.decoder.append(bytes) }
        inBatch { decodeFrames() }
    }

    /// Delivers bytes read from the transport.
    package func receive(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { receive($0) }
    }

    /// Lets the transport read straight into the decoder's buffer (see
    /// `FrameDecoder.withUnsafeMutableInputBuffer`), then handles the frames completed. `read`
    /// returns the number of bytes it stored, or 0 or less for none; that number is returned.
    @discardableResult
    package func receive(readingWith read: (UnsafeMutableRawBufferPointer) -> Int) -> Int {
        let count = input.withLock { $0.decoder.withUnsafeMutableInputBuffer(read) }
        if count > 0 { inBatch { decodeFrames() } }
        return count
    }

    /// Runs `deliver` as one batch: a close asked for meanwhile waits for its end.
    private func inBatch(_ deliver: () -> Void) {
        state.withLock { $0.receivingBatch = true }
        defer {
            let deferred = state.withLock { state in
                state.receivingBatch = false
                defer { state.deferredClose = nil }
                return state.deferredClose
            }
            if let deferred { close(code: deferred.code, reason: deferred.reason, waitForOwedReplies: deferred.waitForOwedReplies) }
        }
        deliver()
    }

    private enum DecodeStep {
        case stop
        case frame(Frame, behindHeld: Bool)
        case violation(ProtocolViolation)
    }

    /// Decodes and delivers buffered frames until none is complete, the session is over, or
    /// enough is held back.
    private func decodeFrames() {
        while true {
            let step = input.withLock { input -> DecodeStep in
                if input.isHeldFull { return .stop }
                do throws(ProtocolViolation) {
                    guard let frame = try input.decoder.next() else { return .stop }
                    return .frame(frame, behindHeld: input.isHolding)
                } catch {
                    return .violation(error)
                }
            }
            switch step {
            case .stop:
                return
            case .violation(let violation):
                violated(violation)
                return
            case .frame(let frame, let behindHeld):
                // Behind a held frame, only answers to this side's requests go past (a handler
                // that waits for one must not wait for its own slot); the rest keeps its order.
                if behindHeld, frame.kind != Frame.Kind.reply, frame.kind != Frame.Kind.pong {
                    input.withLock { $0.hold(frame) }
                    continue
                }
                switch deliver(frame) {
                case .delivered:
                    continue
                case .closed:
                    return
                case .hold(let slot, let room):
                    input.withLock { $0.hold(frame, needsHandlerSlot: slot, needsAnswerRoom: room) }
                    holdsInput.store(true, ordering: .relaxed)
                    let waiters = state.withLock { state in
                        defer { state.inputHeldWaiters = [] }
                        return state.inputHeldWaiters
                    }
                    for waiter in waiters { waiter.resume() }
                }
            }
        }
    }

    /// The outcome of delivering one frame.
    enum Delivery {
        case delivered
        /// The session is over.
        case closed
        /// Not delivered: it waits for a handler slot and/or for the answers to drain.
        case hold(needsHandlerSlot: Bool, needsAnswerRoom: Bool)
    }

    /// Handles one frame.
    private func deliver(_ frame: Frame) -> Delivery {
        if case .hello(let hello) = frame { return handleHello(hello) ? .delivered : .closed }
        let (open, hasHello) = state.withLock { (!$0.isClosed, $0.peerHello != nil) }
        guard open else { return .closed }
        // A refused peer gets GOODBYE as its first and only frame, so GOODBYE may come first.
        if !hasHello, frame.kind != .goodbye {
            violated(ProtocolViolation(.frameBeforeHello, "\(frame.kind) frame before HELLO"))
            return .closed
        }
        switch frame {
        case .hello:
            return .delivered
        case .request(let id, let channel, let payload):
            return handleRequest(id: id, channel: channel, payload: payload)
        case .reply(let id, let result):
            handleReply(id: id, result: result)
        case .message(let channel, let payload):
            return handleMessage(channel: channel, payload: payload)
        case .cancel(let id):
            handleCancel(id: id)
        case .ping(let token):
            if flow?.isAnswerBacklogged == true { return .hold(needsHandlerSlot: false, needsAnswerRoom: true) }
            writeFrame(.pong(token: token))
        case .pong(let token):
            let waiter = state.withLock { $0.pings.removeValue(forKey: token)?.continuation }
            waiter?.resume()
        case .goodbye(let code, let reason):
            let drained = state.withLock { state -> Bool in
                if state.peerGoodbye == nil { state.peerGoodbye = (code, reason) }
                return state.isDrained
            }
            if drained { finishDrained() }
        }
        return .delivered
    }

    private func handleHello(_ hello: Frame.Hello) -> Bool {
        enum Outcome { case closed, accepted([UnsafeContinuation<Frame.Hello, any Error>]), broken(ProtocolViolation) }
        let outcome = state.withLock { state -> Outcome in
            if state.isClosed { return .closed }
            if state.peerHello != nil {
                return .broken(ProtocolViolation(.secondHello, "a second HELLO on one session"))
            }
            if hello.role != role.peer {
                return .broken(ProtocolViolation(.wrongRole, "a \(role) cannot talk to a \(hello.role)"))
            }
            state.peerHello = hello
            if let max = hello.maxFrameLength {
                peerMaxFrameLength.store(max, ordering: .relaxed)
                limit.peerAnnounced(max)
            }
            let waiters = state.helloWaiters.values.compactMap(\.continuation)
            state.helloWaiters = state.helloWaiters.filter { $0.value.continuation == nil }
            return .accepted(waiters)
        }
        switch outcome {
        case .closed:
            return false
        case .broken(let violation):
            violated(violation)
            return false
        case .accepted(let waiters):
            for waiter in waiters { waiter.resume(returning: hello) }
            return true
        }
    }

    private func handleRequest(id: UInt32, channel: String, payload: [UInt8]?) -> Delivery {
        enum Outcome {
            case ignore, duplicate, hold(slot: Bool, room: Bool)
            case answer(Frame.Reply)
            case answerNow(SynchronousMessageHandler)
            case run(ConnectionState.Handler, serial: UInt64)
        }
        // Every request is answered, so none starts while the answers pile up unsent.
        let backlogged = flow?.isAnswerBacklogged ?? false
        let outcome = state.withLock { state -> Outcome in
            if state.isClosed { return .ignore }
            if !state.inbound.isEmpty, state.inbound[id] != nil { return .duplicate }
            // After the peer's GOODBYE it may send only replies; a crossing request is dropped.
            if state.peerGoodbye != nil { return .ignore }
            if backlogged { return .hold(slot: false, room: true) }
            if state.sentGoodbye != nil { return .answer(.failure("the connection is closing")) }
            if let reason = state.refusalReason { return .answer(.failure(reason)) }
            guard let installed = state.handlers.lookup(channel) else { return .answer(.null) }
            if case .synchronous(let handler) = installed.handler { return .answerNow(handler) }
            if state.handlerSlotsFull {
                state.holdingForHandlers = true
                return .hold(slot: true, room: false)
            }
            state.nextInboundSerial &+= 1
            state.inbound[id] = ConnectionState.InboundRequest(serial: state.nextInboundSerial)
            return .run(installed.handler, serial: state.nextInboundSerial)
        }
        switch outcome {
        case .ignore:
            return .delivered
        case .duplicate:
            violated(ProtocolViolation(.duplicateRequestID, "REQUEST id \(id) is already in flight"))
            return .closed
        case .hold(let slot, let room):
            return .hold(needsHandlerSlot: slot, needsAnswerRoom: room)
        case .answer(let result):
            writeFrame(.reply(id: id, result: fitting(result)))
            return .delivered
        case .answerNow(let handler):
            writeReply(id: id, channel: channel, Result { try handler(payload) })
            return .delivered
        case .run(let handler, let serial):
            let task = Task.immediate {
                await self.runHandler(handler, channel: channel, id: id, serial: serial, payload: payload)
            }
            state.withLock { state in
                if state.inbound[id]?.serial == serial { state.inbound[id]?.task = task }
            }
            return .delivered
        }
    }

    private func runHandler(_ handler: ConnectionState.Handler, channel: String, id: UInt32, serial: UInt64,
                            payload: [UInt8]?) async {
        let answer: Result<MessageSegments?, any Error>
        // Work the handler asks for after its reply (an event stream's first events) runs once the
        // reply is queued, whether or not it is still owed.
        var afterReply: (@Sendable () -> Void)?
        do {
            switch handler {
            case .plain(let handler):
                answer = .success(try await handler(payload).map { MessageSegments($0) })
            case .segmented(let handler):
                let reply = try await handler(payload)
                afterReply = reply.afterReply
                answer = .success(reply.reply)
            case .synchronous(let handler):
                answer = .success(try handler(payload))
            }
        } catch {
            answer = .failure(error)
        }
        // A cancelled or closed request is no longer owed: its entry is gone. The reply is queued
        // before the entry goes: a session that is ending (after either side's GOODBYE) closes as
        // soon as nothing is owed, and another handler finishing between this removal and this
        // write would have closed it with the reply unsent (one reply of 100 pipelined calls was
        // lost so under ThreadSanitizer). A CANCEL that crosses in between is answered anyway; the
        // peer ignores a reply to a withdrawn request.
        if state.withLock({ $0.inbound[id]?.serial == serial }) {
            writeReply(id: id, channel: channel, answer)
            let (drained, freedSlot) = state.withLock { state -> (Bool, Bool) in
                guard state.inbound[id]?.serial == serial else { return (false, false) }
                state.inbound[id] = nil
                return (state.isDrained, state.takeHandlerSlotWake())
            }
            if freedSlot { flowTransport?.inputMayResume() }
            if drained { finishDrained() }
        }
        afterReply?()
    }

    /// The REPLY for what a handler answered: its bytes (large segments go out of their own
    /// arrays), null, or the failure's description. A reply larger than the peer accepts is not
    /// sent: the requester gets REPLY status 2 saying so, and the session goes on.
    private func writeReply(id: UInt32, channel: String, _ answer: Result<MessageSegments?, any Error>) {
        switch answer {
        case .success(nil):
            writeFrame(.reply(id: id, result: .null))
        case .success(let reply?):
            let count = reply.count
            let limit = outboundFrameLimit
            guard count <= limit - Self.replyFrameOverhead else {
                writeFrame(.reply(id: id, result: fitting(.failure(Self.replyTooLarge(channel: channel, count: count, limit: limit)))))
                return
            }
            guard !reply.rest.isEmpty, count >= Self.separatePayloadThreshold else {
                writeFrame(.reply(id: id, result: .bytes(reply.joined)))
                return
            }
            writeFrame(.reply(id: id, result: .bytes([])), payloadSegments: reply.all, count: count)
        case .failure(let error):
            writeFrame(.reply(id: id, result: fitting(.failure(String(describing: error)))))
        }
    }

    /// Bytes a REPLY frame adds to its payload: kind, id and status (the length field aside).
    package static let replyFrameOverhead = 1 + 4 + 1

    /// The status-2 diagnostic for a reply the peer would refuse.
    static func replyTooLarge(channel: String, count: Int, limit: Int) -> String {
        "REPLY_TOO_LARGE: the reply on channel '\(channel)' has \(count) bytes, more than a frame of at most "
            + "\(limit) bytes can carry; it was not sent"
    }

    /// `reply`, with a status-2 diagnostic cut so that the frame fits the peer's maximum.
    func fitting(_ reply: Frame.Reply) -> Frame.Reply {
        guard case .failure(let text) = reply else { return reply }
        let room = outboundFrameLimit - Self.replyFrameOverhead
        guard text.utf8.count > room else { return reply }
        var kept = String.UnicodeScalarView()
        var count = 0
        for scalar in text.unicodeScalars {
            count += UTF8.width(scalar)
            if count > max(0, room) { break }
            kept.append(scalar)
        }
        return .failure(String(kept))
    }

    private func handleReply(id: UInt32, result: Frame.Reply) {
        // A REPLY for an id not in flight is ignored: it can cross this side's CANCEL.
        let (call, drained) = state.withLock { state -> (ConnectionState.PendingCall?, Bool) in
            guard let call = state.pending.remove(id) else { return (nil, false) }
            return (call, state.isDrained)
        }
        guard let call else { return }
        let continuation = call.continuation
        switch result {
        case .bytes(let bytes):
            continuation.resume(returning: bytes)
        case .null:
            continuation.resume(returning: nil)
        case .failure(let diagnostic):
            continuation.resume(throwing: MessengerError(.handlerFailed, diagnostic, channel: call.channel))
        }
        if drained { finishDrained() }
    }

    private func handleMessage(channel: String, payload: [UInt8]?) -> Delivery {
        enum Outcome {
            case drop, hold
            case now(SynchronousMessageHandler)
            case run(ConnectionState.Handler, serial: UInt64)
        }
        let outcome = state.withLock { state -> Outcome in
            guard state.peerGoodbye == nil, !state.isClosed, let installed = state.handlers.lookup(channel) else { return .drop }
            if case .synchronous(let handler) = installed.handler { return .now(handler) }
            if state.handlerSlotsFull {
                state.holdingForHandlers = true
                return .hold
            }
            state.nextInboundSerial &+= 1
            state.messageTasks.updateValue(nil, forKey: state.nextInboundSerial)
            return .run(installed.handler, serial: state.nextInboundSerial)
        }
        switch outcome {
        case .drop:
            break
        case .hold:
            return .hold(needsHandlerSlot: true, needsAnswerRoom: false)
        case .now(let handler):
            _ = try? handler(payload)
        case .run(let handler, let serial):
            let task = Task.immediate {
                switch handler {
                case .plain(let handler): _ = try? await handler(payload)
                case .segmented(let handler): (try? await handler(payload))?.afterReply?()
                case .synchronous(let handler): _ = try? handler(payload)
                }
                self.messageHandlerFinished(serial)
            }
            state.withLock { state in
                if state.messageTasks.index(forKey: serial) != nil { state.messageTasks[serial] = task }
            }
        }
        return .delivered
    }

    private func messageHandlerFinished(_ serial: UInt64) {
        let freedSlot = state.withLock { state -> Bool in
            guard state.messageTasks.removeValue(forKey: serial) != nil else { return false }
            return state.takeHandlerSlotWake()
        }
        if freedSlot { flowTransport?.inputMayResume() }
    }

    private func handleCancel(id: UInt32) {
        let (task, drained, freedSlot) = state.withLock { state -> (Task<Void, Never>?, Bool, Bool) in
            guard let request = state.inbound.removeValue(forKey: id) else { return (nil, false, false) }
            return (request.task, state.isDrained, state.takeHandlerSlotWake())
        }
        task?.cancel()
        if freedSlot { flowTransport?.inputMayResume() }
        if drained { finishDrained() }
    }
}

import ChannelBridgeBytes
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
        if reader.withValue({ $0.chargeAwaitedAtHeader }) > 0, let demand = demandWhileAwaitingCharge() {
            return demand
        }
        let (first, full) = input.withLock { ($0.first, $0.isHeldFull) }
        guard let first else { return .read }
        let (closed, slotsFull) = state.withLock { ($0.isClosed, $0.handlerSlotsFull) }
        if closed {
            // Held frames of an ended session never start.
            let prepaid = input.withLock { $0.dropAll() }
            if prepaid > 0 { requestBudget?.release(prepaid) }
            holdsInput.store(false, ordering: .relaxed)
            return .read
        }
        let waitsForSlot = first.needsHandlerSlot && slotsFull
        let waitsForRoom = first.needsAnswerRoom && (flow?.isAnswerBacklogged ?? false)
        // Asked last: a request that does not fit registers this connection to be woken by the
        // next release, so that a wait that follows is never missed.
        let waitsForBudget =
            !waitsForSlot && !waitsForRoom && first.needsBudget > 0
            && !(requestBudget?.admits(first.needsBudget, waiter: ObjectIdentifier(self), wake: budgetWake) ?? true)
        guard waitsForSlot || waitsForRoom || waitsForBudget else { return .resume }
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
        reader.claim()
        inBatch {
            state.withLock { $0.holdingForHandlers = false }
            while let held = input.withLock({ input in input.first.map { ($0.frame, input.takeFirstPrepaid()) } }) {
                reader.withValue { $0.prepaidCharge = held.1 }
                switch deliver(.frame(held.0)) {
                case .delivered:
                    let empty = input.withLock { input -> Bool in
                        input.removeFirst()
                        return !input.isHolding
                    }
                    if empty, reader.withValue({ $0.chargeAwaitedAtHeader }) == 0 {
                        holdsInput.store(false, ordering: .relaxed)
                    }
                case .closed:
                    return
                case .hold(let slot, let room, let budget):
                    let prepaid = reader.withValue { $0.takePrepaidCharge() }
                    input.withLock {
                        $0.updateFirst(
                            needsHandlerSlot: slot, needsAnswerRoom: room, needsBudget: budget, prepaid: prepaid)
                    }
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
        reader.claim()
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
        reader.claim()
        let count = input.withLock { $0.decoder.withUnsafeMutableInputBuffer(read) }
        if count > 0 { inBatch { decodeFrames() } }
        return count
    }

    /// Runs `deliver` as one batch: a close asked for meanwhile waits for its end.
    private func inBatch(_ deliver: () -> Void) {
        // No lock in the common case: the flag and `closeDeferred` pair up as in
        // Dekker's algorithm. `close` sets `closeDeferred`, then reads this flag; this side clears
        // the flag, then reads `closeDeferred`. Both sequentially consistent, so a close that saw
        // the batch (and deferred itself, in `state`'s lock) is always seen here, and taken in
        // that lock; one that did not see it happened before or after the batch, as it would had
        // both taken the lock. A close that missed the batch only costs the next batch a lock.
        receivingBatch.store(true, ordering: .sequentiallyConsistent)
        defer {
            receivingBatch.store(false, ordering: .sequentiallyConsistent)
            if closeDeferred.load(ordering: .sequentiallyConsistent) {
                let deferred = state.withLock { state in
                    closeDeferred.store(false, ordering: .relaxed)
                    return state.lifecycle.takeDeferredClose()
                }
                if let deferred {
                    close(code: deferred.code, reason: deferred.reason, waitForOwedReplies: deferred.waitForOwedReplies)
                }
            }
        }
        deliver()
    }

    private enum DecodeStep {
        case stop
        /// Stopped inside a REQUEST frame of this length that may have to be charged from the
        /// request budget before its body is read.
        case stopInsideRequest(Int)
        case frame(FrameDecoder.DecodedFrame)
        /// A frame after which nothing is buffered: once it is delivered, the next step would be
        /// `stop`, and is not asked for (a lock less per read).
        case lastFrame(FrameDecoder.DecodedFrame)
        /// A frame decoded while earlier ones are held back. (Not a flag beside the frame: a
        /// tuple payload is copied through the runtime's generic tuple witness.)
        case behindHeld(FrameDecoder.DecodedFrame)
        case violation(ProtocolViolation)
    }

    /// Decodes and delivers buffered frames until none is complete, the session is over, or
    /// enough is held back.
    private func decodeFrames() {
        var decodedAny = false
        while true {
            let step = input.withLock { input -> DecodeStep in
                if input.isHeldFull {
                    // Held back by this side: not the peer's to answer for.
                    reader.withValue { $0.partialFrameBytes = 0 }
                    return .stop
                }
                do throws(ProtocolViolation) {
                    guard let decoded = try input.decoder.nextInPlace() else {
                        let partial = input.decoder.bufferedByteCount
                        let prepaid = reader.withValue { reader in
                            // A frame was completed in this pass, so what is buffered now began after it.
                            if partial > 0, decodedAny || reader.partialFrameBytes == 0 {
                                reader.partialFrameSerial &+= 1
                            }
                            reader.partialFrameBytes = partial
                            return reader.prepaidCharge
                        }
                        if partial > 0, requestBudget != nil, prepaid == 0,
                            let length = input.decoder.pendingRequestLength,
                            length >= RequestBudget.requestChargeThreshold
                        {
                            return .stopInsideRequest(length)
                        }
                        return .stop
                    }
                    decodedAny = true
                    if input.isHolding { return .behindHeld(decoded) }
                    return input.decoder.isDrained ? .lastFrame(decoded) : .frame(decoded)
                } catch {
                    return .violation(error)
                }
            }
            let decoded: FrameDecoder.DecodedFrame
            var isLast = false
            switch step {
            case .stop:
                return
            case .stopInsideRequest(let length):
                chargeBegunRequest(length: length)
                return
            case .violation(let violation):
                violated(violation)
                return
            case .behindHeld(let frame):
                // Behind a held frame, only answers to this side's requests go past (a handler
                // that waits for one must not wait for its own slot); the rest keeps its order.
                if frame.kind != Frame.Kind.reply, frame.kind != Frame.Kind.pong {
                    let prepaid = reader.withValue { $0.takePrepaidCharge() }
                    input.withLock { $0.hold(frame.frame, prepaid: prepaid) }
                    continue
                }
                decoded = frame
            case .frame(let frame):
                decoded = frame
            case .lastFrame(let frame):
                decoded = frame
                isLast = true
            }
            reader.withValue { $0.deliveringLastFrame = isLast }
            let delivery = deliver(decoded)
            reader.withValue { $0.deliveringLastFrame = false }
            switch delivery {
            case .delivered:
                // Nothing was left to decode, and only this thread appends to the decoder.
                if isLast {
                    reader.withValue { $0.partialFrameBytes = 0 }
                    return
                }
                continue
            case .closed:
                return
            case .hold(let slot, let room, let budget):
                let prepaid = reader.withValue { $0.takePrepaidCharge() }
                input.withLock {
                    $0.hold(
                        decoded.frame, needsHandlerSlot: slot, needsAnswerRoom: room, needsBudget: budget,
                        prepaid: prepaid)
                }
                holdsInput.store(true, ordering: .relaxed)
                let waiters = state.withLock { state in
                    defer { state.inputHeldWaiters = [] }
                    return state.inputHeldWaiters
                }
                for waiter in waiters { waiter.resume() }
            }
        }
    }

    /// The outcome of delivering one frame.
    enum Delivery {
        case delivered
        /// The session is over.
        case closed
        /// Not delivered: it waits for a handler slot, for the answers to drain, or for
        /// `needsBudget` bytes of the `RequestBudget`.
        case hold(needsHandlerSlot: Bool, needsAnswerRoom: Bool, needsBudget: Int = 0)
    }

    /// Handles one frame; a REQUEST whose payload is still in the receive buffer is read there.
    private func deliver(_ decoded: FrameDecoder.DecodedFrame) -> Delivery {
        if case .frame(.hello(let hello)) = decoded { return handleHello(hello) ? .delivered : .closed }
        // Requests and replies, the frames of every call, check the session and the HELLO in the
        // lock they take anyway: one lock per frame.
        switch decoded {
        case .request(let id, let channel, let buffer, let payload):
            // Read where it lies: lent from the receive buffer for the length of the delivery.
            guard let payload else { return handleRequest(id: id, channel: channel, payload: nil) }
            return handleRequest(id: id, channel: channel, payload: Payload(lending: buffer, checkedRange: payload))
        case .frame(.request(let id, let channel, let payload)):
            guard let payload else { return handleRequest(id: id, channel: channel, payload: nil) }
            return handleRequest(id: id, channel: channel, payload: Payload(payload))
        case .frame(.reply(let id, let result)):
            return handleReply(id: id, result: result)
        case .reply(let id, let buffer, let payload):
            return handleReply(id: id, result: .bytes([]), inBuffer: (buffer, payload))
        case .split(.request(let id, let channel, let head), let tail):
            return handleRequest(id: id, channel: channel, payload: Payload(head ?? [], segments: [tail]))
        case .split(.reply(let id, .bytes(let head)), let tail):
            return handleReply(id: id, result: .bytes(head), tail: tail)
        case .frame, .split:
            break
        }
        let (open, hasHello) = state.withLock { (!$0.isClosed, $0.peerHello != nil) }
        guard open else { return .closed }
        // A refused peer gets GOODBYE as its first and only frame, so GOODBYE may come first.
        if !hasHello, decoded.kind != .goodbye {
            violated(ProtocolViolation(.frameBeforeHello, "\(decoded.kind) frame before HELLO"))
            return .closed
        }
        guard case .frame(let frame) = decoded else { return .delivered }  // `.request`, `.split`: delivered above
        switch frame {
        case .hello, .request, .reply:
            return .delivered  // delivered above
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
                state.lifecycle.receiveGoodbye((code, reason))
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

    /// The session's end and a frame before the peer's HELLO, checked under the lock a request's
    /// or a reply's delivery takes: what `deliver` checks for every other frame.
    static func unopened(_ state: ConnectionState) -> UnopenedSession? {
        if state.isClosed { return .closed }
        if state.peerHello == nil { return .beforeHello }
        return nil
    }

    enum UnopenedSession {
        case closed, beforeHello
    }

    /// The delivery of a frame that came when the session was not open.
    func deliver(_ kind: Frame.Kind, in unopened: UnopenedSession) -> Delivery {
        if unopened == .beforeHello { violated(ProtocolViolation(.frameBeforeHello, "\(kind) frame before HELLO")) }
        return .closed
    }
}

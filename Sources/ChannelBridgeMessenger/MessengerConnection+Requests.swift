import ChannelBridgeBytes
import ChannelBridgePlatform
import Synchronization

/// The requests the peer sends: finding their handler, running it (at once, in place, or in a
/// task), and writing the reply; and the peer's CANCEL of a request. Their payload is a `Payload`
/// (`nil` for a null payload): an array of its own, a range lent from the receive buffer, or a
/// large payload's head with its last part as the one segment; the peer's MESSAGEs are
/// `+Messages`.
extension MessengerConnection {
    func handleRequest(id: UInt32, channel: String, payload: Payload?) -> Delivery {
        // Charged when its frame began, if it was (reader thread only, as every delivery).
        let prepaid = reader.withValue { $0.takePrepaidCharge() }
        if routesInPlace(channel, payload: payload) {
            if prepaid > 0 { requestBudget?.release(prepaid) }
            let handler = reader.withValue { $0.inPlaceRoute.unsafelyUnwrapped.handler }
            answerInPlace(handler, id: id, channel: channel, payload: payload)
            return .delivered
        }
        enum Outcome {
            case unopened(UnopenedSession)
            case ignore, duplicate, hold(slot: Bool, room: Bool, budget: Int)
            case answer(Frame.Reply)
            case answerInPlace(MessageHandler, epoch: UInt64)
            case run(BinaryMessageHandler, serial: UInt64)
            case runInPlace(MessageHandler, serial: UInt64, epoch: UInt64)
        }
        // Every request is answered, so none starts while the answers pile up unsent.
        let backlogged = flow?.isAnswerBacklogged ?? false
        let charge = requestBudget == nil ? 0 : RequestBudget.charge(forRequestOf: payload?.count ?? 0)
        // Asked before the lock: the gate's admission looks at the payload (it is called, and
        // nothing is called under the lock).
        let gateRefusal = refusalByGate(channel: channel, payload: payload)
        let outcome = state.withLock { state -> Outcome in
            if let unopened = Self.unopened(state) { return .unopened(unopened) }
            if !state.inbound.isEmpty, state.inbound[id] != nil { return .duplicate }
            // After the peer's GOODBYE it may send only replies; a crossing request is dropped.
            if state.lifecycle.peerGoodbye != nil { return .ignore }
            if backlogged { return .hold(slot: false, room: true, budget: 0) }
            if state.lifecycle.sentGoodbye != nil { return .answer(.failure("the connection is closing")) }
            if let reason = state.lifecycle.refusal { return .answer(.failure(reason)) }
            guard let installed = state.lookupHandler(channel) else { return .answer(.null) }
            if let gateRefusal { return .answer(.failure(gateRefusal)) }
            if case .answering(let handler, mayAnswerLater: false) = installed.handler {
                return .answerInPlace(handler, epoch: answerRules.epoch.load(ordering: .relaxed))
            }
            if state.handlerSlotsFull {
                state.holdingForHandlers = true
                return .hold(slot: true, room: false, budget: 0)
            }
            // The budget's lock is taken inside this one and never the other way round; it calls
            // nothing while held.
            if prepaid == 0, charge > 0, let requestBudget,
                !requestBudget.acquire(charge, waiter: ObjectIdentifier(self), wake: budgetWake)
            {
                return .hold(slot: false, room: false, budget: charge)
            }
            state.nextInboundSerial &+= 1
            state.inbound[id] = ConnectionState.InboundRequest(
                serial: state.nextInboundSerial,
                charged: prepaid > 0 ? prepaid : charge)
            switch installed.handler {
            case .answering(let handler, _):
                return .runInPlace(
                    handler, serial: state.nextInboundSerial, epoch: answerRules.epoch.load(ordering: .relaxed))
            case .plain(let handler):
                return .run(handler, serial: state.nextInboundSerial)
            }
        }
        switch outcome {
        case .hold, .run, .runInPlace:
            // Held, the request keeps what it prepaid; run, it is charged with it.
            if case .hold = outcome { reader.withValue { $0.prepaidCharge = prepaid } }
        default:
            if prepaid > 0 { requestBudget?.release(prepaid) }
        }
        switch outcome {
        case .unopened(let unopened):
            return deliver(.request, in: unopened)
        case .ignore:
            return .delivered
        case .duplicate:
            violated(ProtocolViolation(.duplicateRequestID, "REQUEST id \(id) is already in flight"))
            return .closed
        case .hold(let slot, let room, let budget):
            return .hold(needsHandlerSlot: slot, needsAnswerRoom: room, needsBudget: budget)
        case .answer(let result):
            writeFrame(.reply(id: id, result: fitting(result)))
            return .delivered
        case .answerInPlace(let handler, let epoch):
            let route = InPlaceRoute(channel: channel, handler: handler, epoch: epoch, mayAnswerLater: false)
            reader.withValue { $0.inPlaceRoute = route }
            answerInPlace(handler, id: id, channel: channel, payload: payload)
            return .delivered
        case .runInPlace(let handler, let serial, let epoch):
            let route = InPlaceRoute(channel: channel, handler: handler, epoch: epoch, mayAnswerLater: true)
            reader.withValue { $0.inPlaceRoute = route }
            answerOwedInPlace(handler, id: id, channel: channel, serial: serial, payload: payload)
            return .delivered
        case .run(let handler, let serial):
            startHandlerTask(.plain(handler, payload?.array), channel: channel, id: id, serial: serial)
            return .delivered
        }
    }

    /// What runs in a task for an owed request: a plain handler on its payload, or the work a
    /// handler left for later.
    enum HandlerWork {
        case plain(BinaryMessageHandler, [UInt8]?)
        case later(LaterWork)
    }

    /// Runs `work` for owed request `id` in a task of its own, started here.
    func startHandlerTask(_ work: HandlerWork, channel: String, id: UInt32, serial: UInt64) {
        let task = Task.immediate {
            await self.runHandler(work, channel: channel, id: id, serial: serial)
        }
        state.withLock { state in
            if state.inbound[id]?.serial == serial { state.inbound[id]?.task = task }
        }
    }

    /// The status-2 text for a request `requestGate` refuses, or nil.
    @inline(__always)
    func refusalByGate(channel: String, payload: Payload?) -> String? {
        guard let requestGate, requestGate.isClosed else { return nil }
        let refused = HandlerMessage.reading(payload) { requestGate.refuses(channel: channel, payload: $0.bytes) }
        return refused ? requestGate.reason : nil
    }

    func runHandler(_ work: HandlerWork, channel: String, id: UInt32, serial: UInt64) async {
        let answer: Result<Payload?, any Error>
        // Work the handler asks for after its reply (an event stream's first events) runs once the
        // reply is queued, whether or not it is still owed.
        var afterReply: (@Sendable () -> Void)?
        do {
            switch work {
            case .plain(let handler, let payload):
                answer = .success(try await handler(payload).map { Payload($0) })
            case .later(let work):
                let reply = try await work.run()
                afterReply = reply.afterReply
                answer = .success(reply.reply)
            }
        } catch {
            answer = .failure(error)
        }
        finishRequest(id: id, channel: channel, serial: serial, answer)
        afterReply?()
    }

    /// Sends the reply to a request that held an owed entry (and a handler slot), unless it was
    /// cancelled or closed meanwhile, then lets the entry go.
    func finishRequest(
        id: UInt32, channel: String, serial: UInt64, _ answer: Result<Payload?, any Error>,
        endsDelivery: Bool = false
    ) {
        // A cancelled or closed request is no longer owed: its entry is gone. The reply is queued
        // before the entry goes: a session that is ending (after either side's GOODBYE) closes as
        // soon as nothing is owed, and another handler finishing between this removal and this
        // write would have closed it with the reply unsent (one reply of 100 pipelined calls was
        // lost so under ThreadSanitizer). A CANCEL that crosses in between is answered anyway; the
        // peer ignores a reply to a withdrawn request.
        if state.withLock({ $0.inbound[id]?.serial == serial }) {
            writeReply(id: id, channel: channel, answer, endsDelivery: endsDelivery)
            let (drained, freedSlot, charged) = state.withLock { state -> (Bool, Bool, Int) in
                guard let request = state.inbound[id], request.serial == serial else { return (false, false, 0) }
                state.inbound[id] = nil
                return (state.isDrained, state.takeHandlerSlotWake(), request.charged)
            }
            requestBudget?.release(charged)
            if freedSlot { flowTransport?.inputMayResume() }
            if drained { finishDrained() }
        }
    }

    /// The REPLY for what a handler answered: its bytes (large segments go out of their own
    /// arrays), null, or the failure's description. A reply larger than the peer accepts is not
    /// sent: the requester gets REPLY status 2 saying so, and the session goes on. `endsDelivery`:
    /// written by the delivering thread for the last frame received so far (`writeSmallReply`).
    func writeReply(
        id: UInt32, channel: String, _ answer: Result<Payload?, any Error>, endsDelivery: Bool = false
    ) {
        switch answer {
        case .success(nil):
            writeFrame(.reply(id: id, result: .null))
        case .success(let reply?):
            let count = reply.count
            let limit = outboundFrameLimit
            guard count <= limit - Self.replyFrameOverhead else {
                writeFrame(
                    .reply(
                        id: id,
                        result: fitting(.failure(Self.replyTooLarge(channel: channel, count: count, limit: limit)))))
                return
            }
            guard !reply.isContiguous, count >= Self.separatePayloadThreshold else {
                if reply.isContiguous, count < Self.separatePayloadThreshold {
                    reply.withUnsafeHeadBytes { writeSmallReply(id: id, payload: $0, endsDelivery: endsDelivery) }
                } else {
                    writeFrame(.reply(id: id, result: .bytes(reply.array)))
                }
                return
            }
            writeFrame(.reply(id: id, result: .bytes([])), payloadSegments: reply.parts, count: count)
        case .failure(let error):
            writeFrame(.reply(id: id, result: fitting(.failure(String(describing: error)))))
        }
    }

    /// The REPLY for what a handler answered where its request was read: the bytes it wrote over
    /// `replyScratch` are copied into the outbound frame, except a reply large enough to go out of
    /// its own array, which takes the buffer along (the next reply starts a new one).
    func writeInPlaceReply(id: UInt32, channel: String, _ answer: Result<HandlerAnswer, any Error>, endsDelivery: Bool)
    {
        switch answer {
        case .success(.written(let count)):
            let takesBuffer =
                count > outboundFrameLimit - Self.replyFrameOverhead || count >= Self.separatePayloadThreshold
            // A small reply is written from the buffer where it lies (writing touches nothing of
            // the reader's state); a large one takes the buffer along and is written after.
            let large = reader.withValue { reader -> [UInt8]? in
                precondition(
                    count >= 0 && count <= reader.replyScratch.count,
                    "a handler reported more bytes than it was lent")
                guard takesBuffer else {
                    reader.replyScratch.withUnsafeBytes {
                        writeSmallReply(
                            id: id, payload: UnsafeRawBufferPointer(rebasing: $0[..<count]), endsDelivery: endsDelivery)
                    }
                    return nil
                }
                var bytes: [UInt8] = []
                swap(&bytes, &reader.replyScratch)
                return bytes
            }
            if let bytes = large {
                writeReply(id: id, channel: channel, .success(Payload(lending: bytes, count: count).owned()))
            }
        case .success(.null):
            writeFrame(.reply(id: id, result: .null))
        case .success(.payload(let payload)):
            writeReply(id: id, channel: channel, .success(payload), endsDelivery: endsDelivery)
        case .success(.later(let work)):
            startLater(work, id: id, channel: channel)
        case .failure(let error):
            writeReply(id: id, channel: channel, .failure(error))
        }
    }

    /// A REPLY whose payload is small enough to be copied into the outbound block: written there
    /// directly (`FrameEncoder.storeReply`), with no `Frame` built and encoded on the way.
    /// When it `endsDelivery` (the answer to the last frame received so far, written by the
    /// delivering thread), the transport may send it at once.
    private func writeSmallReply(id: UInt32, payload: UnsafeRawBufferPointer, endsDelivery: Bool) {
        let length = FrameEncoder.encodedReplyLength(payloadCount: payload.count)
        transport.write(frameOfLength: length, followedBy: [], flush: endsDelivery) {
            FrameEncoder.storeReply(id: id, payload: payload, into: $0)
        }
    }

    /// Bytes a REPLY frame adds to its payload: kind, id and status (the length field aside).
    @inlinable package static var replyFrameOverhead: Int { 1 + 4 + 1 }

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

    func handleCancel(id: UInt32) {
        let (task, drained, freedSlot, charged) = state.withLock { state -> (Task<Void, Never>?, Bool, Bool, Int) in
            guard let request = state.inbound.removeValue(forKey: id) else { return (nil, false, false, 0) }
            return (request.task, state.isDrained, state.takeHandlerSlotWake(), request.charged)
        }
        task?.cancel()
        requestBudget?.release(charged)
        if freedSlot { flowTransport?.inputMayResume() }
        if drained { finishDrained() }
    }
}

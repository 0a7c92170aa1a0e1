extension MessengerConnection {
    /// Delivers bytes read from the transport. Frames are handled in order as soon as they are
    /// complete; a broken rule ends the session with GOODBYE.
    public func receive(_ bytes: UnsafeRawBufferPointer) {
        guard !bytes.isEmpty else { return }
        decoder.withLock { $0.append(bytes) }
        processFrames()
    }

    /// Delivers bytes read from the transport.
    public func receive(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { receive($0) }
    }

    /// Lets the transport read straight into the decoder's buffer (see
    /// `FrameDecoder.withUnsafeMutableInputBuffer`), then handles the frames completed. `read`
    /// returns the number of bytes it stored, or 0 or less for none; that number is returned.
    @discardableResult
    public func receive(readingWith read: (UnsafeMutableRawBufferPointer) -> Int) -> Int {
        let count = decoder.withLock { $0.withUnsafeMutableInputBuffer(read) }
        if count > 0 { processFrames() }
        return count
    }

    private func processFrames() {
        state.withLock { $0.receivingBatch = true }
        defer {
            let deferred = state.withLock { state in
                state.receivingBatch = false
                defer { state.deferredClose = nil }
                return state.deferredClose
            }
            if let deferred { close(code: deferred.code, reason: deferred.reason, waitForOwedReplies: deferred.waitForOwedReplies) }
        }
        while true {
            let next = decoder.withLock { decoder in Result { () throws(ProtocolViolation) in try decoder.next() } }
            switch next {
            case .success(nil):
                return
            case .success(let frame?):
                guard handle(frame) else { return }
            case .failure(let violation):
                violated(violation)
                return
            }
        }
    }

    /// Handles one frame; false once the session is over.
    private func handle(_ frame: Frame) -> Bool {
        if case .hello(let hello) = frame { return handleHello(hello) }
        let (open, hasHello) = state.withLock { (!$0.isClosed, $0.peerHello != nil) }
        guard open else { return false }
        // A refused peer gets GOODBYE as its first and only frame, so GOODBYE may come first.
        if !hasHello, frame.kind != .goodbye {
            violated(ProtocolViolation(.frameBeforeHello, "\(frame.kind) frame before HELLO"))
            return false
        }
        switch frame {
        case .hello:
            return true
        case .request(let id, let channel, let payload):
            return handleRequest(id: id, channel: channel, payload: payload)
        case .reply(let id, let result):
            handleReply(id: id, result: result)
        case .message(let channel, let payload):
            handleMessage(channel: channel, payload: payload)
        case .cancel(let id):
            handleCancel(id: id)
        case .ping(let token):
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
        return true
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

    private func handleRequest(id: UInt32, channel: String, payload: [UInt8]?) -> Bool {
        enum Outcome {
            case ignore, duplicate
            case answer(Frame.Reply)
            case answerNow(SynchronousMessageHandler)
            case run(ConnectionState.Handler, serial: UInt64)
        }
        let outcome = state.withLock { state -> Outcome in
            if state.isClosed { return .ignore }
            if state.inbound[id] != nil { return .duplicate }
            // After the peer's GOODBYE it may send only replies; a crossing request is dropped.
            if state.peerGoodbye != nil { return .ignore }
            if state.sentGoodbye != nil { return .answer(.failure("the connection is closing")) }
            if let reason = state.refusalReason { return .answer(.failure(reason)) }
            guard let installed = state.handlers[channel] else { return .answer(.null) }
            if case .synchronous(let handler) = installed.handler { return .answerNow(handler) }
            state.nextInboundSerial &+= 1
            state.inbound[id] = ConnectionState.InboundRequest(serial: state.nextInboundSerial)
            return .run(installed.handler, serial: state.nextInboundSerial)
        }
        switch outcome {
        case .ignore:
            return true
        case .duplicate:
            violated(ProtocolViolation(.duplicateRequestID, "REQUEST id \(id) is already in flight"))
            return false
        case .answer(let result):
            writeFrame(.reply(id: id, result: result))
            return true
        case .answerNow(let handler):
            writeReply(id: id, Result { try handler(payload) })
            return true
        case .run(let handler, let serial):
            let task = Task.immediate {
                await self.runHandler(handler, channel: channel, id: id, serial: serial, payload: payload)
            }
            state.withLock { state in
                if state.inbound[id]?.serial == serial { state.inbound[id]?.task = task }
            }
            return true
        }
    }

    private func runHandler(_ handler: ConnectionState.Handler, channel: String, id: UInt32, serial: UInt64,
                            payload: [UInt8]?) async {
        let answer: Result<MessageSegments?, any Error>
        // Work the handler schedules for after its reply (an event stream's first events) runs
        // once the reply is queued, whether or not it is still owed.
        let hook = AfterReply(channel: channel)
        defer { hook.run() }
        do {
            answer = .success(try await AfterReply.$current.withValue(hook) {
                switch handler {
                case .plain(let handler): try await handler(payload).map { MessageSegments($0) }
                case .segmented(let handler): try await handler(payload)
                case .synchronous(let handler): try handler(payload)
                }
            })
        } catch {
            answer = .failure(error)
        }
        // A cancelled or closed request is no longer owed: its entry is gone.
        let (owed, drained) = state.withLock { state -> (Bool, Bool) in
            guard state.inbound[id]?.serial == serial else { return (false, false) }
            state.inbound[id] = nil
            return (true, state.isDrained)
        }
        guard owed else { return }
        writeReply(id: id, answer)
        if drained { finishDrained() }
    }

    /// The REPLY for what a handler answered: its bytes (large segments go out of their own
    /// arrays), null, or the failure's description.
    private func writeReply(id: UInt32, _ answer: Result<MessageSegments?, any Error>) {
        switch answer {
        case .success(nil):
            writeFrame(.reply(id: id, result: .null))
        case .success(let reply?):
            let count = reply.count
            guard !reply.rest.isEmpty, count >= Self.separatePayloadThreshold else {
                writeFrame(.reply(id: id, result: .bytes(reply.joined)))
                return
            }
            writeFrame(.reply(id: id, result: .bytes([])), payloadSegments: reply.all, count: count)
        case .failure(let error):
            writeFrame(.reply(id: id, result: .failure(String(describing: error))))
        }
    }

    private func handleReply(id: UInt32, result: Frame.Reply) {
        // A REPLY for an id not in flight is ignored: it can cross this side's CANCEL.
        let (call, drained) = state.withLock { state -> (ConnectionState.PendingCall?, Bool) in
            guard let call = state.pending.removeValue(forKey: id) else { return (nil, false) }
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

    private func handleMessage(channel: String, payload: [UInt8]?) {
        let handler = state.withLock { state -> ConnectionState.Handler? in
            state.peerGoodbye == nil && !state.isClosed ? state.handlers[channel]?.handler : nil
        }
        switch handler {
        case .synchronous(let handler)?: _ = try? handler(payload)
        case .plain(let handler)?: Task.immediate { _ = try? await handler(payload) }
        case .segmented(let handler)?: Task.immediate { _ = try? await handler(payload) }
        case nil: break
        }
    }

    private func handleCancel(id: UInt32) {
        let (task, drained) = state.withLock { state -> (Task<Void, Never>?, Bool) in
            guard let request = state.inbound.removeValue(forKey: id) else { return (nil, false) }
            return (request.task, state.isDrained)
        }
        task?.cancel()
        if drained { finishDrained() }
    }
}

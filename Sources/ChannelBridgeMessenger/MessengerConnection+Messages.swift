import ChannelBridgeBytes
import ChannelBridgePlatform

/// The MESSAGEs the peer sends (one-way, no reply): finding their handler and running it, at
/// once or in a task that holds a handler slot.
extension MessengerConnection {
    func handleMessage(channel: String, payload: [UInt8]?) -> Delivery {
        enum Outcome {
            case drop, hold
            case now(MessageHandler)
            case run(ConnectionState.Handler, serial: UInt64)
        }
        if refusalByGate(channel: channel, payload: payload.map { Payload($0) }) != nil { return .delivered }
        let outcome = state.withLock { state -> Outcome in
            // After the peer's GOODBYE it may send only replies, as for requests.
            let takesMessages = state.lifecycle.peerGoodbye == nil && !state.isClosed
            guard takesMessages, let installed = state.lookupHandler(channel) else { return .drop }
            if case .answering(let handler, mayAnswerLater: false) = installed.handler { return .now(handler) }
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
            // Not installed to answer later, so it answers at once; the answer is dropped.
            var reply: [UInt8] = []
            _ = try? HandlerMessage.reading(payload) { try handler($0, &reply) }
        case .run(let handler, let serial):
            let task = Task.immediate {
                switch handler {
                case .plain(let handler): _ = try? await handler(payload)
                case .answering(let handler, _):
                    (try? await HandlerReply(answering: payload, with: handler))?.afterReply?()
                }
                self.messageHandlerFinished(serial)
            }
            state.withLock { state in
                if state.messageTasks.index(forKey: serial) != nil { state.messageTasks[serial] = task }
            }
        }
        return .delivered
    }

    func messageHandlerFinished(_ serial: UInt64) {
        let freedSlot = state.withLock { state -> Bool in
            guard state.messageTasks.removeValue(forKey: serial) != nil else { return false }
            return state.takeHandlerSlotWake()
        }
        if freedSlot { flowTransport?.inputMayResume() }
    }
}

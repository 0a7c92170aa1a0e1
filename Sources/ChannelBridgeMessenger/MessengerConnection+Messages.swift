import ChannelBridgePlatform

/// The MESSAGEs the peer sends (one-way, no reply): finding their handler and running it, at
/// once or in a task that holds a handler slot.
extension MessengerConnection {
    func handleMessage(channel: String, payload: [UInt8]?) -> Delivery {
        enum Outcome {
            case drop, hold
            case now(ConnectionState.Handler)
            case run(ConnectionState.Handler, serial: UInt64)
        }
        if refusalByGate(channel: channel, payload: .owned(payload)) != nil { return .delivered }
        let outcome = state.withLock { state -> Outcome in
            // After the peer's GOODBYE it may send only replies, as for requests.
            let takesMessages = state.lifecycle.peerGoodbye == nil && !state.isClosed
            guard takesMessages, let installed = state.lookupHandler(channel) else { return .drop }
            switch installed.handler {
            case .synchronous, .inPlace: return .now(installed.handler)
            case .plain, .segmented, .immediate, .inPlaceOrLater: break
            }
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
        case .now(.synchronous(let handler)):
            _ = try? handler(payload)
        case .now(.inPlace(let handler)):
            // Not installed to answer later, so its answer is at hand.
            _ = try? Self.answer(of: handler, payload)
        case .now:
            break  // only synchronous and in-place handlers run at once
        case .run(let handler, let serial):
            let task = Task.immediate {
                switch handler {
                case .plain(let handler): _ = try? await handler(payload)
                case .segmented(let handler): (try? await handler(payload))?.afterReply?()
                case .synchronous(let handler): _ = try? handler(payload)
                case .inPlace(let handler), .inPlaceOrLater(let handler):
                    (try? await Self.answer(of: handler, payload).reply())?.afterReply?()
                case .immediate(let handler): (try? await handler(payload).reply())?.afterReply?()
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

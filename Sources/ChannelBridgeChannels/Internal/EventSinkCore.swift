import ChannelBridgeCodec
import ChannelBridgeMessenger
import Synchronization

/// The state behind an `EventSink`: holds events back until the `listen` reply is out, then
/// posts them in the order they were sent.
final class EventSinkCore: Sendable {
    private enum Phase {
        /// The `listen` reply is not out yet; events queue.
        case holding
        /// The reply is out and the queue is being posted; new events still queue behind it.
        case flushing
        /// Events are posted as they come.
        case open
        /// Cancelled or replaced; nothing more is sent.
        case closed
    }

    private struct State {
        var phase = Phase.holding
        var queue: [[UInt8]?] = []
        var ended = false
    }

    let channel: String
    private let messenger: any BinaryMessenger
    private let codec: any MethodCodec
    private let state = Mutex(State())

    init(channel: String, messenger: any BinaryMessenger, codec: any MethodCodec) {
        self.channel = channel
        self.messenger = messenger
        self.codec = codec
    }

    var isActive: Bool {
        state.withLock { $0.phase != .closed && !$0.ended }
    }

    func send(_ event: StandardValue) {
        let payload: [UInt8]
        do {
            payload = try codec.encodeSuccessEnvelope(event)
        } catch {
            // A producer bug must still reach the listener rather than vanish.
            send(MethodError(code: "error", message: "Cannot encode event on channel \(channel): \(error)"))
            return
        }
        emit(payload, ending: false)
    }

    func send(_ error: MethodError) {
        guard let payload = try? MethodChannel.encodeError(error, codec: codec) else { return }
        emit(payload, ending: false)
    }

    func end() {
        emit(nil, ending: true)
    }

    private func emit(_ payload: [UInt8]?, ending: Bool) {
        let postNow = state.withLock { state -> Bool in
            guard state.phase != .closed, !state.ended else { return false }
            if ending { state.ended = true }
            if state.phase == .open { return true }
            state.queue.append(payload)
            return false
        }
        if postNow { post(payload) }
    }

    /// Called once the `listen` reply is queued: posts what was held back, then goes live.
    func open() {
        let start = state.withLock { state -> Bool in
            guard state.phase == .holding else { return false }
            state.phase = .flushing
            return true
        }
        guard start else { return }
        while true {
            let batch = state.withLock { state -> [[UInt8]?]? in
                guard state.phase == .flushing else { return nil }
                if state.queue.isEmpty {
                    state.phase = .open
                    return nil
                }
                defer { state.queue = [] }
                return state.queue
            }
            guard let batch else { return }
            for payload in batch { post(payload) }
        }
    }

    /// Stops the sink; with `endingStream`, first tells the listener the stream is over.
    func close(endingStream: Bool = false) {
        let postEnd = state.withLock { state -> Bool in
            // An end of stream still held back would follow the reply; one sent already is enough.
            let needsEnd = endingStream && !state.ended && state.phase != .closed
            state.phase = .closed
            state.queue = []
            state.ended = true
            return needsEnd
        }
        if postEnd { post(nil) }
    }

    private func post(_ payload: [UInt8]?) {
        // A failed post means the connection has ended; the stream is cancelled through onClose.
        try? messenger.post(onChannel: channel, message: payload)
    }
}

import ChannelBridgeCodec
import ChannelBridgeMessenger
import ChannelBridgePlatform
import Synchronization

/// One `receiveBroadcastStream` on the listener side: the messenger handler that turns MESSAGE
/// frames into events, the `listen` call, and the `cancel` call when the stream terminates.
///
/// `listen` and `cancel` go through the channel's request queue, one after another in the order
/// they were made: a `cancel` for an ended stream always precedes the `listen` of the next one,
/// and a `cancel` never precedes its own `listen`. (Starting each with `Task.immediate` was not
/// enough: the end of a stream is seen on the connection's reader thread, and the task that sends
/// its `cancel` could reach the wire after the consumer's next `listen`, which then cancelled the
/// new stream.) The owner handles them in arrival order.
final class EventSubscription: CloseObserver {
    typealias Continuation = AsyncThrowingStream<EventChannel.Event, any Error>.Continuation

    private struct State {
        var token: MessageHandlerToken?
        /// Set when the stream ends in a way that leaves nothing to cancel on the owner's side.
        var skipCancel = false
        /// The end's work (handler removed, `cancel` submitted) is done; it runs once.
        var terminated = false
        /// The sizes of the events waiting for the consumer, oldest first (`sizes[head...]`).
        var sizes: [Int] = []
        var head = 0
        var waitingBytes = 0
    }

    let channel: String
    let arguments: StandardValue
    private let methods: MethodChannel
    private let requests: SerialQueue
    private let continuation: Continuation
    private let maxBufferedBytes: Int
    private let state = LockedValue(State())
    /// True while events wait for the consumer; while false and the consumer keeps up, an event
    /// costs no lock.
    private let tracking = Atomic<Bool>(false)

    init(
        methods: MethodChannel, requests: SerialQueue, arguments: StandardValue, continuation: Continuation,
        maxBufferedBytes: Int = EventChannel.defaultListenerMaxBufferedBytes
    ) {
        self.channel = methods.name
        self.methods = methods
        self.requests = requests
        self.arguments = arguments
        self.continuation = continuation
        self.maxBufferedBytes = max(1, maxBufferedBytes)
    }

    /// Installs the event handler; events that arrive before the `listen` reply are delivered
    /// too, as in Flutter.
    func installHandler() {
        continuation.onTermination = { [self] _ in terminated() }
        // Synchronous: an event is handed to the stream right where it is read, with no task.
        let token = methods.messenger.installMessageHandler(
            onChannel: channel,
            { [self] message, _ in
                receive(message.array)
                return .null
            }, mayAnswerLater: false)
        state.withLock { $0.token = token }
    }

    /// Sends `listen`; a refusal or failure ends the stream with its error.
    func listen() {
        let (methods, arguments) = (self.methods, self.arguments)
        requests.submit { [self] in
            do {
                _ = try await methods.invokeMethod("listen", arguments: arguments)
            } catch {
                state.withLock { $0.skipCancel = true }
                continuation.finish(throwing: error)
            }
        }
    }

    private func receive(_ payload: [UInt8]?) {
        guard let payload else {
            end()
            return
        }
        let event: EventChannel.Event
        do {
            event = try methods.codec.decodeEnvelope(payload)
        } catch {
            end(
                throwing: ChannelError(
                    .malformedEvent, "Cannot decode an event: \(error)",
                    channel: channel, codecError: error))
            return
        }
        guard case .enqueued(let remaining) = continuation.yield(event) else { return }
        account(payload.count, waiting: Int.max - remaining)
    }

    /// Keeps the bytes of the `waiting` newest events (the ones the consumer has not taken), this
    /// one of `size` bytes among them; ends the stream when they are too many.
    private func account(_ size: Int, waiting: Int) {
        if waiting == 0, !tracking.load(ordering: .relaxed) { return }
        let overflow = state.withLock { state -> Int? in
            state.sizes.append(size)
            state.waitingBytes += size
            while state.sizes.count - state.head > waiting {
                state.waitingBytes -= state.sizes[state.head]
                state.head += 1
            }
            if state.head == state.sizes.count {
                state.sizes.removeAll(keepingCapacity: true)
                state.head = 0
            } else if state.head >= 64, state.head * 2 >= state.sizes.count {
                state.sizes.removeFirst(state.head)
                state.head = 0
            }
            tracking.store(!state.sizes.isEmpty, ordering: .relaxed)
            return state.waitingBytes > maxBufferedBytes ? state.waitingBytes : nil
        }
        if let overflow {
            end(
                throwing: ChannelError(
                    .streamOverflow,
                    "The consumer of channel \(channel) fell behind: \(overflow) bytes of events waited to be taken, over the "
                        + "limit of \(maxBufferedBytes); the stream was ended",
                    channel: channel))
        }
    }

    /// A newer `receiveBroadcastStream` on the same channel took over; the owner cancels this
    /// stream itself when it gets the new `listen`.
    func supersede() {
        state.withLock { $0.skipCancel = true }
        continuation.finish()
    }

    func connectionClosed(_ error: MessengerError) {
        state.withLock { $0.skipCancel = true }
        continuation.finish(throwing: ChannelError(error, channel: channel))
    }

    /// Ends the stream from the reader's side (the owner's end of stream, an undecodable event, an
    /// overflow) with its `cancel` already submitted. The consumer may be behind, taking events
    /// the stream still holds: it sees the end as soon as `finish` marks it, before the stream's
    /// termination handler has run on this thread. If the `cancel` were submitted only there, a
    /// consumer that listens again at once could submit its `listen` first, and the owner would
    /// cancel the new stream, which then never ends.
    private func end(throwing error: (any Error)? = nil) {
        terminated()
        continuation.finish(throwing: error)
    }

    /// The stream is over for any reason: stop receiving and, unless there is nothing to cancel,
    /// tell the owner (also after the owner's end of stream, as Flutter's listener does, so that
    /// the owner's `onCancel` runs). Runs once, from `end` or from the stream's termination.
    private func terminated() {
        let (token, skipCancel, first) = state.withLock { state in
            defer { state.terminated = true }
            return (state.token, state.skipCancel, !state.terminated)
        }
        guard first else { return }
        CloseObservers.shared.remove(self, for: methods.messenger)
        if let token { methods.messenger.removeMessageHandler(token) }
        guard !skipCancel else { return }
        let (methods, arguments) = (self.methods, self.arguments)
        requests.submit {
            _ = try? await methods.invokeMethod("cancel", arguments: arguments)
        }
    }
}

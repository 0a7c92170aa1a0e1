import ChannelBridgeChannels
public import ChannelBridgeMessenger
import ChannelBridgePlatform

/// A `BinaryMessenger` for channel unit tests: it records every frame this side sends, answers its
/// requests from a script, and lets a test play the peer by delivering requests and messages to the
/// installed handlers.
///
/// ```swift
/// let messenger = RecordingMessenger { channel, request in [0x00, 0x07, 0x02, 0x6f, 0x6b] }  // success "ok"
/// let channel = MethodChannel(name: "test/methods", messenger: messenger)
/// let value = try await channel.invokeMethod("exit")                      // .string("ok")
/// #expect(messenger.entries == [
///     .request(channel: "test/methods", message: [0x07, 0x04, 0x65, 0x78, 0x69, 0x74, 0x00]),
///     .reply(channel: "test/methods", reply: [0x00, 0x07, 0x02, 0x6f, 0x6b]),
/// ])
/// ```
public final class RecordingMessenger: BinaryMessenger, FastPathMessenger {
    /// One thing that happened on this side of the (pretend) connection, in order.
    public enum Entry: Sendable, Hashable {
        /// This side sent a request (`send`).
        case request(channel: String, message: [UInt8]?)
        /// The script answered a request of this side.
        case reply(channel: String, reply: [UInt8]?)
        /// A request of this side was withdrawn because its task was cancelled (a CANCEL frame).
        case cancel(channel: String)
        /// This side sent a one-way message (`post`).
        case message(channel: String, message: [UInt8]?)
        /// A handler of this side answered a delivered request (a REPLY frame).
        case handlerReply(channel: String, reply: [UInt8]?)
        /// A handler of this side threw for a delivered request (a REPLY with status 2).
        case handlerFailure(channel: String, error: String)
    }

    /// Answers a request sent by this side: return the reply (`nil` for a null reply) or throw.
    /// It may suspend as long as it likes; cancelling the request or closing cancels it.
    public typealias Responder = @Sendable (_ channel: String, _ message: [UInt8]?) async throws -> [UInt8]?

    private struct Pending {
        let channel: String
        let continuation: CheckedContinuation<[UInt8]?, any Error>
        var responder: Task<Void, Never>?
    }

    private struct Waiter {
        let predicate: @Sendable ([Entry]) -> Bool
        let continuation: CheckedContinuation<Void, Never>
    }

    private struct State {
        var entries: [Entry] = []
        var responder: Responder?
        var handlers: [String: (id: UInt64, handler: SegmentedMessageHandler)] = [:]
        var nextID: UInt64 = 1
        var pending: [UInt64: Pending] = [:]
        var cancelledEarly: Set<UInt64> = []
        var waiters: [UInt64: Waiter] = [:]
        var closeCallbacks: [@Sendable (MessengerError) -> Void] = []
        var closed: MessengerError?
    }

    private let state: LockedValue<State>

    /// - Parameter responder: answers this side's requests; without one every request gets a null
    ///   reply, as from a peer with no handler on the channel.
    public init(responder: Responder? = nil) {
        var initial = State()
        initial.responder = responder
        state = LockedValue(initial)
    }

    // MARK: Inspecting

    /// Everything recorded so far, in order.
    public var entries: [Entry] {
        state.withLock { $0.entries }
    }

    /// Whether a handler is installed on `channel`.
    public func hasHandler(onChannel channel: String) -> Bool {
        state.withLock { $0.handlers[channel] != nil }
    }

    /// Requests of this side still waiting for their reply.
    public var pendingRequestCount: Int {
        state.withLock { $0.pending.count }
    }

    /// Suspends until `predicate` holds for the recorded entries (or the task is cancelled).
    public func waitUntil(_ predicate: @escaping @Sendable ([Entry]) -> Bool) async {
        let id = state.withLock { state -> UInt64 in
            defer { state.nextID += 1 }
            return state.nextID
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let ready = state.withLock { state -> Bool in
                    if predicate(state.entries) || Task.isCancelled { return true }
                    state.waiters[id] = Waiter(predicate: predicate, continuation: continuation)
                    return false
                }
                if ready { continuation.resume() }
            }
        } onCancel: {
            state.withLock { $0.waiters.removeValue(forKey: id) }?.continuation.resume()
        }
    }

    // MARK: Scripting

    /// Replaces the script that answers this side's requests (`nil`: null replies).
    public func setResponder(_ responder: Responder?) {
        state.withLock { $0.responder = responder }
    }

    /// Answers this side's requests with this side's own handlers, as if the peer mirrored them.
    /// A handler that throws fails the request with `MessengerError.handlerFailed`, as on a real
    /// connection.
    public func loopBack() {
        setResponder { [unowned self] channel, message in
            do {
                return try await deliver(onChannel: channel, message: message)
            } catch let error as MessengerError {
                throw error
            } catch {
                throw MessengerError(.handlerFailed, String(describing: error), channel: channel)
            }
        }
    }

    /// Delivers a request from the pretend peer to the handler on `channel` and returns its reply
    /// (`nil` for a null reply, or when no handler is installed). Rethrows what the handler throws.
    @discardableResult
    public func deliver(onChannel channel: String, message: [UInt8]?) async throws -> [UInt8]? {
        guard let handler = state.withLock({ $0.handlers[channel]?.handler }) else {
            record(.handlerReply(channel: channel, reply: nil))
            return nil
        }
        do {
            let answer = try await handler(message)
            let reply = answer.reply?.joined
            record(.handlerReply(channel: channel, reply: reply))
            // Work for after the reply (an event stream's first events) runs once it is recorded,
            // as a real messenger runs it once the reply is queued.
            answer.afterReply?()
            return reply
        } catch {
            record(.handlerFailure(channel: channel, error: String(describing: error)))
            throw error
        }
    }

    /// Delivers a one-way message from the pretend peer to the handler on `channel`; its reply is
    /// dropped, as a real messenger drops it.
    public func deliverMessage(onChannel channel: String, message: [UInt8]?) async {
        guard let handler = state.withLock({ $0.handlers[channel]?.handler }) else { return }
        (try? await handler(message))?.afterReply?()
    }

    /// Ends the pretend connection: pending requests fail with `error` (naming their channel),
    /// close callbacks run, later sends and posts fail, and the handlers are let go, as a real
    /// connection lets them go when it closes (a handler that holds its channel, which holds this
    /// messenger, is a cycle until then).
    public func close(_ error: MessengerError = MessengerError(.connectionClosed, "the connection ended")) {
        let (pending, callbacks, handlers) = state.withLock {
            state -> ([Pending], [@Sendable (MessengerError) -> Void], [String: (id: UInt64, handler: SegmentedMessageHandler)]) in
            guard state.closed == nil else { return ([], [], [:]) }
            state.closed = error
            defer {
                state.pending = [:]
                state.closeCallbacks = []
                state.handlers = [:]
            }
            return (Array(state.pending.values), state.closeCallbacks, state.handlers)
        }
        // Released here, after unlocking: a handler's captures may run deinit code.
        _ = handlers
        for request in pending {
            request.responder?.cancel()
            request.continuation.resume(throwing: Self.named(error, channel: request.channel))
        }
        for callback in callbacks { callback(error) }
    }

    // MARK: BinaryMessenger

    public func send(onChannel channel: String, message: [UInt8]?) async throws -> [UInt8]? {
        let id = state.withLock { state -> UInt64 in
            defer { state.nextID += 1 }
            return state.nextID
        }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<[UInt8]?, any Error>) in
                enum Start { case failed(any Error), respond(Responder?, [Waiter]) }
                let start = state.withLock { state -> Start in
                    if let closed = state.closed { return .failed(Self.named(closed, channel: channel)) }
                    if state.cancelledEarly.remove(id) != nil { return .failed(CancellationError()) }
                    state.pending[id] = Pending(channel: channel, continuation: continuation)
                    let woken = Self.append(.request(channel: channel, message: message), to: &state)
                    return .respond(state.responder, woken)
                }
                switch start {
                case .failed(let error):
                    continuation.resume(throwing: error)
                case .respond(let responder, let woken):
                    for waiter in woken { waiter.continuation.resume() }
                    let task = Task {
                        let result: Result<[UInt8]?, any Error>
                        do {
                            result = .success(try await responder?(channel, message) ?? nil)
                        } catch {
                            result = .failure(error)
                        }
                        self.complete(id, result)
                    }
                    state.withLock { state in
                        state.pending[id]?.responder = task
                    }
                }
            }
        } onCancel: {
            self.cancel(id)
        }
    }

    public func post(onChannel channel: String, message: [UInt8]?) throws {
        let closed = state.withLock { $0.closed }
        if let closed { throw Self.named(closed, channel: channel) }
        record(.message(channel: channel, message: message))
    }

    @discardableResult
    public func setMessageHandler(onChannel channel: String, _ handler: BinaryMessageHandler?) -> MessageHandlerToken {
        guard let handler else { return install(nil, onChannel: channel) }
        return install({ message in
            let reply = try await handler(message)
            return HandlerReply(reply.map { MessageSegments($0) })
        }, onChannel: channel)
    }

    // MARK: FastPathMessenger (segmented replies are recorded joined; synchronous handlers run as
    // the others do, when a request or message is delivered)

    package func send(onChannel channel: String, segments: MessageSegments) async throws -> [UInt8]? {
        try await send(onChannel: channel, message: segments.joined)
    }

    @discardableResult
    package func setSegmentedMessageHandler(onChannel channel: String, _ handler: SegmentedMessageHandler?) -> MessageHandlerToken {
        install(handler, onChannel: channel)
    }

    @discardableResult
    package func setSynchronousMessageHandler(onChannel channel: String,
                                              _ handler: SynchronousMessageHandler?) -> MessageHandlerToken {
        guard let handler else { return install(nil, onChannel: channel) }
        return install({ message in HandlerReply(try handler(message)) }, onChannel: channel)
    }

    package var outboundFlow: OutboundFlow? { nil }
    package var frameLimit: FrameLimit? { nil }

    private func install(_ handler: SegmentedMessageHandler?, onChannel channel: String) -> MessageHandlerToken {
        state.withLock { state in
            defer { state.nextID += 1 }
            if let handler {
                state.handlers[channel] = (state.nextID, handler)
            } else {
                state.handlers[channel] = nil
            }
            return MessageHandlerToken(channel: channel, id: state.nextID)
        }
    }

    public func removeMessageHandler(_ token: MessageHandlerToken) {
        state.withLock { state in
            if state.handlers[token.channel]?.id == token.id { state.handlers[token.channel] = nil }
        }
    }

    public func onClose(_ callback: @escaping @Sendable (MessengerError) -> Void) {
        let closed = state.withLock { state -> MessengerError? in
            if state.closed == nil { state.closeCallbacks.append(callback) }
            return state.closed
        }
        if let closed { callback(closed) }
    }

    // MARK: Internals

    private func complete(_ id: UInt64, _ result: Result<[UInt8]?, any Error>) {
        let (pending, woken) = state.withLock { state -> (Pending?, [Waiter]) in
            guard let pending = state.pending.removeValue(forKey: id) else { return (nil, []) }
            guard case .success(let reply) = result else { return (pending, []) }
            return (pending, Self.append(.reply(channel: pending.channel, reply: reply), to: &state))
        }
        for waiter in woken { waiter.continuation.resume() }
        pending?.continuation.resume(with: result)
    }

    private func cancel(_ id: UInt64) {
        let (pending, woken) = state.withLock { state -> (Pending?, [Waiter]) in
            guard let pending = state.pending.removeValue(forKey: id) else {
                state.cancelledEarly.insert(id)
                return (nil, [])
            }
            return (pending, Self.append(.cancel(channel: pending.channel), to: &state))
        }
        for waiter in woken { waiter.continuation.resume() }
        pending?.responder?.cancel()
        pending?.continuation.resume(throwing: CancellationError())
    }

    private func record(_ entry: Entry) {
        let woken = state.withLock { Self.append(entry, to: &$0) }
        for waiter in woken { waiter.continuation.resume() }
    }

    /// Appends `entry` and takes out the waiters it satisfies; the caller resumes them unlocked.
    private static func append(_ entry: Entry, to state: inout State) -> [Waiter] {
        state.entries.append(entry)
        var woken: [Waiter] = []
        for (id, waiter) in state.waiters where waiter.predicate(state.entries) {
            woken.append(waiter)
            state.waiters[id] = nil
        }
        return woken
    }

    private static func named(_ error: MessengerError, channel: String) -> MessengerError {
        var error = error
        if error.channel == nil { error.channel = channel }
        return error
    }
}

package import ChannelBridgeBytes
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

    struct Pending {
        let channel: String
        let continuation: CheckedContinuation<[UInt8]?, any Error>
        var responder: Task<Void, Never>?
    }

    struct State {
        var entries: [Entry] = []
        var responder: Responder?
        var handlers: [String: (id: UInt64, handler: TaskMessageHandler)] = [:]
        var nextID: UInt64 = 1
        var pending: [UInt64: Pending] = [:]
        var cancelledEarly: Set<UInt64> = []
        var closeCallbacks: [@Sendable (MessengerError) -> Void] = []
        var closed: MessengerError?
    }

    /// Every change wakes the `waitUntil` callers whose predicate now holds (`Observed`, the
    /// machinery `MessageRecorder` and `MockStreamHandler` wait on too).
    let state: Observed<State>

    /// - Parameter responder: answers this side's requests; without one every request gets a null
    ///   reply, as from a peer with no handler on the channel.
    public init(responder: Responder? = nil) {
        var initial = State()
        initial.responder = responder
        state = Observed(initial)
    }

    // MARK: Inspecting

    /// Everything recorded so far, in order.
    public var entries: [Entry] {
        state.read { $0.entries }
    }

    /// Whether a handler is installed on `channel`.
    public func hasHandler(onChannel channel: String) -> Bool {
        state.read { $0.handlers[channel] != nil }
    }

    /// Requests of this side still waiting for their reply.
    public var pendingRequestCount: Int {
        state.read { $0.pending.count }
    }

    /// Suspends until `predicate` holds for the recorded entries (or the task is cancelled).
    /// `predicate` runs under the messenger's lock: it must only read the entries.
    public func waitUntil(_ predicate: @escaping @Sendable ([Entry]) -> Bool) async {
        await state.wait { predicate($0.entries) }
    }

    /// Ends the pretend connection: pending requests fail with `error` (naming their channel),
    /// close callbacks run, later sends and posts fail, and the handlers are let go, as a real
    /// connection lets them go when it closes (a handler that holds its channel, which holds this
    /// messenger, is a cycle until then).
    public func close(_ error: MessengerError = MessengerError(.connectionClosed, "the connection ended")) {
        let (pending, callbacks, handlers) = state.update {
            state -> (
                [Pending], [@Sendable (MessengerError) -> Void],
                [String: (id: UInt64, handler: TaskMessageHandler)]
            ) in
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
        let id = state.update { state -> UInt64 in
            defer { state.nextID += 1 }
            return state.nextID
        }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<[UInt8]?, any Error>) in
                enum Start { case failed(any Error), respond(Responder?) }
                let start = state.update { state -> Start in
                    if let closed = state.closed { return .failed(Self.named(closed, channel: channel)) }
                    if state.cancelledEarly.remove(id) != nil { return .failed(CancellationError()) }
                    state.pending[id] = Pending(channel: channel, continuation: continuation)
                    state.entries.append(.request(channel: channel, message: message))
                    return .respond(state.responder)
                }
                switch start {
                case .failed(let error):
                    continuation.resume(throwing: error)
                case .respond(let responder):
                    let task = Task {
                        let result: Result<[UInt8]?, any Error>
                        do {
                            result = .success(try await responder?(channel, message) ?? nil)
                        } catch {
                            result = .failure(error)
                        }
                        self.complete(id, result)
                    }
                    state.update { state in
                        state.pending[id]?.responder = task
                    }
                }
            }
        } onCancel: {
            self.cancel(id)
        }
    }

    public func post(onChannel channel: String, message: [UInt8]?) throws {
        let closed = state.read { $0.closed }
        if let closed { throw Self.named(closed, channel: channel) }
        record(.message(channel: channel, message: message))
    }

    @discardableResult
    public func setMessageHandler(onChannel channel: String, _ handler: BinaryMessageHandler?) -> MessageHandlerToken {
        guard let handler else { return install(nil, onChannel: channel) }
        return install(
            { message in
                let reply = try await handler(message)
                return HandlerReply(reply.map { Payload($0) })
            }, onChannel: channel)
    }

    // MARK: FastPathMessenger (segmented replies are recorded joined; package handlers run as the
    // others do, with a reply buffer of their own, when a request or message is delivered)

    package func send(onChannel channel: String, payload: Payload) async throws -> [UInt8]? {
        try await send(onChannel: channel, message: payload.array)
    }

    @discardableResult
    package func setMessageHandler(
        onChannel channel: String, _ handler: MessageHandler?, mayAnswerLater: Bool, splitter: PayloadSplitter?
    ) -> MessageHandlerToken {
        guard let handler else { return install(nil, onChannel: channel) }
        return install({ message in try await HandlerReply(answering: message, with: handler) }, onChannel: channel)
    }

    package var outboundFlow: OutboundFlow? { nil }
    package var frameLimit: FrameLimit? { nil }
    package var directConnection: MessengerConnection? { nil }

    private func install(_ handler: TaskMessageHandler?, onChannel channel: String) -> MessageHandlerToken {
        state.update { state in
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
        state.update { state in
            if state.handlers[token.channel]?.id == token.id { state.handlers[token.channel] = nil }
        }
    }

    public func onClose(_ callback: @escaping @Sendable (MessengerError) -> Void) {
        let closed = state.update { state -> MessengerError? in
            if state.closed == nil { state.closeCallbacks.append(callback) }
            return state.closed
        }
        if let closed { callback(closed) }
    }

    // MARK: Internals

    private func complete(_ id: UInt64, _ result: Result<[UInt8]?, any Error>) {
        let pending = state.update { state -> Pending? in
            guard let pending = state.pending.removeValue(forKey: id) else { return nil }
            if case .success(let reply) = result {
                state.entries.append(.reply(channel: pending.channel, reply: reply))
            }
            return pending
        }
        pending?.continuation.resume(with: result)
    }

    private func cancel(_ id: UInt64) {
        let pending = state.update { state -> Pending? in
            guard let pending = state.pending.removeValue(forKey: id) else {
                state.cancelledEarly.insert(id)
                return nil
            }
            state.entries.append(.cancel(channel: pending.channel))
            return pending
        }
        pending?.responder?.cancel()
        pending?.continuation.resume(throwing: CancellationError())
    }

    func record(_ entry: Entry) {
        state.update { $0.entries.append(entry) }
    }

    private static func named(_ error: MessengerError, channel: String) -> MessengerError {
        var error = error
        if error.channel == nil { error.channel = channel }
        return error
    }
}

import ChannelBridgeBytes
import ChannelBridgeChannels
import ChannelBridgeMessenger
import ChannelBridgePlatform
public import Foundation

/// A serial queue made by `FlutterEngine.makeBackgroundTaskQueue`: handlers installed with it run
/// there, one at a time in arrival order, instead of on the platform executor.
// @unchecked: its one stored property is a `let` serial executor, itself Sendable.
public final class FlutterEngineTaskQueue: NSObject, FlutterTaskQueue, @unchecked Sendable {
    // @unchecked: immutable.
    let executor: SerialExecutor

    init(executor: SerialExecutor) {
        self.executor = executor
        super.init()
    }
}

extension FlutterEngine: FlutterBinaryMessenger {
    public var makeBackgroundTaskQueue: (() -> any FlutterTaskQueue)? {
        { [self] in FlutterEngineTaskQueue(executor: makeTaskQueueExecutor()) }
    }

    /// Sends a one-way message. A closed session or a refused message is logged.
    public func send(onChannel channel: String, message: Data?) {
        do {
            try sessionMessenger.post(onChannel: channel, message: message.map { [UInt8]($0) })
        } catch {
            FlutterLog.warning("Cannot send on channel '\(channel)': \(error)")
        }
    }

    /// Sends a message; `callback` gets the reply on the platform executor. When the session ends
    /// first (or the message cannot be sent) it gets `nil`, as for a channel with no handler,
    /// and the cause is logged.
    public func send(onChannel channel: String, message: Data?, binaryReply callback: FlutterBinaryReply?) {
        guard let callback else {
            send(onChannel: channel, message: message)
            return
        }
        let reply = Handoff(callback)
        let (messenger, platform) = (sessionMessenger, platform)
        let bytes = message.map { [UInt8]($0) }
        // Started here, not enqueued: the request is written before this call returns, so the
        // messages a handler sends go out in the order it sends them.
        Task.immediate {
            var answer: Data?
            do {
                answer = try await messenger.send(onChannel: channel, message: bytes).map { Data($0) }
            } catch {
                FlutterLog.warning("No reply on channel '\(channel)': \(error)")
            }
            let delivered = Handoff(answer)
            platform.enqueueUnbounded { reply.value(delivered.value) }
        }
    }

    @discardableResult
    public func setMessageHandlerOnChannel(
        _ channel: String,
        binaryMessageHandler handler: FlutterBinaryMessageHandler?
    ) -> FlutterBinaryMessengerConnection {
        setMessageHandlerOnChannel(channel, binaryMessageHandler: handler, taskQueue: nil)
    }

    @discardableResult
    public func setMessageHandlerOnChannel(
        _ channel: String, binaryMessageHandler handler: FlutterBinaryMessageHandler?,
        taskQueue: (any FlutterTaskQueue)?
    ) -> FlutterBinaryMessengerConnection {
        guard let handler else { return install(nil, onChannel: channel, taskQueue: taskQueue) }
        let plain = Handoff(handler)
        return install(
            { message, reply in plain.value(message, reply.callback) }, onChannel: channel, taskQueue: taskQueue)
    }

    public func cleanUpConnection(_ connection: FlutterBinaryMessengerConnection) {
        let token = state.withLock { state -> MessageHandlerToken? in
            guard let installed = state.connections.removeValue(forKey: connection) else { return nil }
            if state.current[installed.channel] == connection { state.current[installed.channel] = nil }
            return installed.token
        }
        if let token { sessionMessenger.removeMessageHandler(token) }
    }

    /// The executor handlers installed with `taskQueue` run on.
    func executor(for taskQueue: (any FlutterTaskQueue)?) -> SerialExecutor {
        guard let taskQueue else { return platform }
        guard let ours = taskQueue as? FlutterEngineTaskQueue else {
            FlutterLog.warning(
                "A task queue that no FlutterEngine made was given; the handler runs on the platform executor")
            return platform
        }
        return ours.executor
    }

    /// Installs `handler` for `channel` (or removes the channel's handler): each message is handed
    /// to it on its executor, with the reply it owes. Installed in the messenger's one handler
    /// shape, as every channel's handler is, answering later (on the executor). This module's channels use it directly so
    /// that they can answer malformed messages with a failure instead of a null reply.
    func install(
        _ handler: (@Sendable (Data?, MessageReply) -> Void)?, onChannel channel: String,
        taskQueue: (any FlutterTaskQueue)?
    ) -> FlutterBinaryMessengerConnection {
        guard let handler else {
            let token = state.withLock { state -> MessageHandlerToken? in
                guard let connection = state.current.removeValue(forKey: channel) else { return nil }
                return state.connections.removeValue(forKey: connection)?.token
            }
            if let token { sessionMessenger.removeMessageHandler(token) }
            return 0
        }
        let executor = executor(for: taskQueue)
        let messenger = sessionMessenger
        // Nil when the engine is torn down: the warning goes to the log handler after unlocking,
        // as that handler is the app's code and may call the engine.
        let installed = state.withLock { state -> FlutterBinaryMessengerConnection? in
            guard !state.destroyed else { return nil }
            state.nextConnection += 1
            let connection = state.nextConnection
            // Under the lock, so that the token kept is the one the messenger kept.
            let token = messenger.installMessageHandler(
                onChannel: channel,
                InTaskHandler.make { message in
                    HandlerReply(
                        try await Self.deliver(message, on: channel, to: handler, executor: executor).map {
                            Payload($0)
                        })
                },
                mayAnswerLater: true)
            if let previous = state.current[channel] { state.connections[previous] = nil }
            state.current[channel] = connection
            state.connections[connection] = Installed(channel: channel, token: token)
            return connection
        }
        guard let installed else {
            FlutterLog.warning(
                "A handler for channel '\(channel)' was set after the engine was torn down; it is not installed")
            return 0
        }
        return installed
    }

    /// Hands one message to `handler` on `executor` and waits for its reply.
    ///
    /// The message is enqueued before the first suspension: the messenger starts each handler on
    /// its reader thread as the message is read, so messages reach the executor in arrival order.
    private static func deliver(
        _ message: [UInt8]?, on channel: String,
        to handler: @escaping @Sendable (Data?, MessageReply) -> Void,
        executor: SerialExecutor
    ) async throws -> [UInt8]? {
        let pending = PendingReply()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                let reply = MessageReply(channel: channel, continuation: continuation)
                pending.set(reply)
                let data = message.map { Data($0) }
                let admitted = executor.enqueue { handler(data, reply) }
                if !admitted {
                    FlutterLog.warning(
                        "\(executor.label) has \(executor.limit) messages waiting; "
                            + "a message on channel '\(channel)' is refused")
                    reply.fail(
                        "the message on channel '\(channel)' was refused: \(executor.label) has "
                            + "\(executor.limit) messages waiting")
                }
            }
        } onCancel: {
            pending.withdraw()
        }
    }
}

/// The reply of a request whose task may be cancelled (its connection ended), held weakly so
/// that a reply nobody else holds still gets answered by its deinit.
final class PendingReply: Sendable {
    private let reply = LockedValue<(reference: WeakReply, withdrawn: Bool)>((WeakReply(), false))

    func set(_ newReply: MessageReply) {
        let withdrawn = reply.withLock { state -> Bool in
            state.reference.value = newReply
            return state.withdrawn
        }
        if withdrawn { newReply.withdraw() }
    }

    func withdraw() {
        let current = reply.withLock { state -> MessageReply? in
            state.withdrawn = true
            return state.reference.value
        }
        current?.withdraw()
    }

    struct WeakReply {
        weak var value: MessageReply?
    }
}

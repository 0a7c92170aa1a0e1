import ChannelBridgeBytes
/// Everything a `MessengerConnection` mutates, kept behind one lock (`LockedValue`). Nothing runs
/// under that lock but the state's own bookkeeping: continuations are resumed, callbacks and
/// handlers run and frames are written after it is released (`ClosedSession` carries what a close
/// takes out). The connection's other lock, `input`, belongs to the one thread delivering received
/// bytes and is held across its blocking `read` (`receive(readingWith:)`); the two locks are never
/// nested either way (`inputDemand` and `decodeFrames` take them one after the other, and `finish`
/// does not take `input` at all), so a close never waits for a read.
struct ConnectionState {
    /// A request this side sent, registered (in `request`, under the lock) only once its
    /// continuation exists: whoever removes the entry from `pending` resumes it, exactly once.
    struct PendingCall {
        var channel: String
        /// Nil for a call whose caller waits by driving the reader itself
        /// (`MessengerConnection.startDrivenRequest`): whoever removes the entry records its outcome
        /// for the driver instead (`drivenReply` on the reader thread, `drivenFailure` elsewhere).
        var continuation: UnsafeContinuation<Payload?, any Error>?
        /// The task whose call scope's cancellation handler covers this call (its address), or 0
        /// when the call's own handler does.
        var scopeTask: UInt
        /// Storage the caller lent for the reply's bytes (which comes back in it, a lent `Payload`), or empty.
        /// At most `MessengerConnection.lentReplyBufferLimit` bytes.
        var replyBuffer: [UInt8] = []
    }

    /// A request the peer sent whose handler is still running (a reply is owed).
    struct InboundRequest {
        var serial: UInt64
        var task: Task<Void, Never>?
        /// Bytes charged from the `RequestBudget` for it, given back when the entry goes.
        var charged = 0
    }

    struct InstalledHandler {
        var id: UInt64
        var handler: Handler
    }

    /// A handler as it was installed: a public plain one (not wrapped, so it costs nothing extra),
    /// or the package's one shape, with whether it may answer later (see `MessageHandler`).
    enum Handler {
        case plain(BinaryMessageHandler)
        case answering(MessageHandler, mayAnswerLater: Bool)
    }

    /// Someone waiting for a PONG or for the peer's HELLO.
    struct Waiter<Value> {
        var continuation: UnsafeContinuation<Value, any Error>?
        var cancelled = false
    }

    /// Kept current by what decides a REQUEST's fate (`lifecycle`'s transitions, the `didSet` of
    /// `inbound` and `messageTasks`, `setHandler`); the connection reads it without the lock.
    let answerRules: AnswerRules
    /// The session's phase (open, ending, closed), changed only by its transitions.
    var lifecycle: ConnectionLifecycle
    /// The peer's HELLO once it arrived, kept after the session ends: what the peer said, not a
    /// phase (a refused peer's GOODBYE comes without one).
    var peerHello: Frame.Hello?

    var pending = PendingCalls<PendingCall>()
    var nextInboundSerial: UInt64 = 0
    var inbound: [UInt32: InboundRequest] = [:] {
        didSet { answerRules.inboundCountChanged(to: inbound.count + messageTasks.count) }
    }
    /// The peer's messages whose asynchronous handler is still running, by serial; the task is
    /// nil until `Task.immediate` has returned it.
    var messageTasks: [UInt64: Task<Void, Never>?] = [:] {
        didSet { answerRules.inboundCountChanged(to: inbound.count + messageTasks.count) }
    }
    /// At most this many entries in `inbound` and `messageTasks` together; 0 means no limit (a
    /// transport that cannot stop reading).
    var maxHandlersInFlight = 0
    /// Set while a frame is held back for a handler slot: whoever frees one tells the transport.
    var holdingForHandlers = false
    /// Waiting in `waitUntilInputHeld`.
    var inputHeldWaiters: [UnsafeContinuation<Void, Never>] = []
    var nextHandlerID: UInt64 = 0
    /// Changed only through `setHandler` (and the close), which keep `answerRules` current.
    private(set) var handlers = HandlerTable()
    /// The tasks with a `withCallScope` open (their addresses), with how many each has open: one
    /// hash lookup per call however many tasks have one (a pipeline has hundreds).
    var callScopeTasks: [UInt: Int] = [:]
    /// The tasks among those whose scope's cancellation handler has run: a call such a task
    /// registers afterwards is refused, as `Task.isCancelled` would refuse it, without asking the
    /// runtime on every call. Emptied with `callScopeTasks`.
    var cancelledCallScopeTasks: Set<UInt> = []
    var closeCallbacks: [@Sendable (MessengerError) -> Void] = []
    /// How the driven call (`PendingCall.continuation == nil`) ended, when a thread other than
    /// the driver ended it (a cancel): set in the lock that takes the call out of `pending`, taken
    /// by the driver. At most one call is driven at a time (only the reader thread drives).
    var drivenFailure: (any Error)?
    var nextPingToken: UInt64 = 0
    var pings: [UInt64: Waiter<Void>] = [:]
    var nextHelloWaiter: UInt64 = 0
    var helloWaiters: [UInt64: Waiter<Frame.Hello>] = [:]

    init() {
        answerRules = AnswerRules()
        lifecycle = ConnectionLifecycle(answerRules: answerRules)
    }

    @inline(__always)
    var isClosed: Bool { lifecycle.isClosed }

    /// Why the session ended, once it has.
    var closeError: MessengerError? { lifecycle.closeError }

    /// Installs (or, with nil, removes) the handler on `channel`.
    mutating func setHandler(_ installed: InstalledHandler?, on channel: String) {
        handlers.set(installed, on: channel)
        answerRules.changed()
    }

    /// The handler on `channel`, if any (the table remembers the last one looked up).
    @inline(__always)
    mutating func lookupHandler(_ channel: String) -> InstalledHandler? {
        handlers.lookup(channel)
    }

    /// For a call taken out of `pending` by another hand than its reply, in the same lock: when it
    /// is the driven call, records why it ended for its driver (`MessengerConnection.failWithdrawn`).
    @inline(__always)
    mutating func noteWithdrawn(_ call: PendingCall, failure: @autoclosure () -> any Error) {
        if call.continuation == nil { drivenFailure = failure() }
    }

    /// Handlers of the peer's requests and messages running now.
    var handlersInFlight: Int { inbound.count + messageTasks.count }

    /// True when a frame that needs a handler slot must wait for one.
    var handlerSlotsFull: Bool { maxHandlersInFlight > 0 && handlersInFlight >= maxHandlersInFlight }

    /// A handler slot was just freed: true (once) when a frame waits for one, so the caller
    /// tells the transport to look again.
    mutating func takeHandlerSlotWake() -> Bool {
        guard holdingForHandlers, !handlerSlotsFull else { return false }
        holdingForHandlers = false
        return true
    }

    /// Why a new request or message cannot go out now, if it cannot.
    ///
    /// `refusalToSend()` and `isDrained` are `mutating` although they change nothing: called on
    /// the state under its lock (an `inout`), a non-mutating member has the whole struct copied
    /// out first, twice a call; a mutating one reads it in place.
    @inline(__always)
    mutating func refusalToSend() -> String? {
        lifecycle.isOpen ? nil : refusalToSendWhenEnding()
    }

    private func refusalToSendWhenEnding() -> String? {
        if let closeError = lifecycle.closeError { return closeError.message }
        if let sentGoodbye = lifecycle.sentGoodbye { return "this side has said goodbye (\(sentGoodbye))" }
        if let peerGoodbye = lifecycle.peerGoodbye {
            return "the peer has said goodbye (\(peerGoodbye.code)): \(peerGoodbye.reason)"
        }
        return nil
    }

    /// True when a session that is ending has nothing more to wait for: after this side's
    /// GOODBYE, no owed replies; after the peer's GOODBYE, nothing owed either way.
    @inline(__always)
    var isDrained: Bool {
        mutating get { lifecycle.isOpen ? false : isDrainedWhenEnding }
    }

    private var isDrainedWhenEnding: Bool {
        guard !lifecycle.isClosed else { return false }
        if lifecycle.sentGoodbye != nil { return inbound.isEmpty }
        if lifecycle.peerGoodbye != nil { return inbound.isEmpty && pending.isEmpty }
        return false
    }

    /// Ends the session: records `error` and takes out everything that must be failed or run.
    mutating func close(with error: MessengerError) -> ClosedSession? {
        guard lifecycle.close(with: error) else { return nil }
        let pendingCalls = pending.removeAll()
        for call in pendingCalls {
            noteWithdrawn(call, failure: MessengerConnection.closedBeforeReply(channel: call.channel, error))
        }
        defer {
            inbound = [:]
            messageTasks = [:]
            inputHeldWaiters = []
            pings = [:]
            helloWaiters = [:]
            closeCallbacks = []
            handlers.removeAll()
        }
        return ClosedSession(
            error: error,
            pending: pendingCalls,
            inboundTasks: inbound.values.compactMap(\.task) + messageTasks.values.compactMap { $0 },
            charged: inbound.values.reduce(0) { $0 + $1.charged },
            pings: pings.values.compactMap(\.continuation),
            helloWaiters: helloWaiters.values.compactMap(\.continuation),
            inputHeldWaiters: inputHeldWaiters,
            callbacks: closeCallbacks)
    }
}

/// What is left to fail and run, outside the lock, when a session ends.
struct ClosedSession {
    var error: MessengerError
    var pending: [ConnectionState.PendingCall]
    var inboundTasks: [Task<Void, Never>]
    /// Bytes the requests in flight had charged from the `RequestBudget`.
    var charged: Int
    var pings: [UnsafeContinuation<Void, any Error>]
    var helloWaiters: [UnsafeContinuation<Frame.Hello, any Error>]
    var inputHeldWaiters: [UnsafeContinuation<Void, Never>]
    var callbacks: [@Sendable (MessengerError) -> Void]
}

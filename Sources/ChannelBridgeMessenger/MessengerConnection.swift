package import ChannelBridgeBytes
import ChannelBridgePlatform
import Synchronization

/// One session of the wire protocol, driven by bytes: the `BinaryMessenger` every transport uses.
///
/// Applications get one from a transport (`SocketConnection.messenger`, or the in-memory pair in
/// ChannelBridgeTesting) and use it as their `BinaryMessenger`:
///
/// ```swift
/// let connection = try await SocketConnection.connect(to: path).messenger
/// connection.setMessageHandler(onChannel: "channelbridge/echo") { message in message }
/// let reply = try await connection.send(onChannel: "channelbridge/echo", message: [1, 2, 3])
/// ```
///
/// Inside the package, a transport creates the connection with its `FrameTransport` (the outbound
/// side); the connection writes its HELLO at once. The transport then feeds what it reads to
/// `receive(_:)`, reports the end with `receiveEnd(error:)` and, after its last delivery,
/// calls `deliveriesEnded()` (package API: applications never see the transport side). Nothing here blocks or starts threads.
///
/// Threads: a caller's task encodes its REQUEST and hands it to the transport itself; the thread
/// that delivers received bytes resumes the waiting caller and starts handlers with
/// `Task.immediate`, so a handler's synchronous part runs right there, in arrival order, and a
/// handler that answers without suspending writes its REPLY from that same thread. Handlers that
/// suspend run on concurrently, so replies can leave out of order.
///
/// Flow control (wire protocol §4.10), on a transport that supports it (`FlowControlledTransport`,
/// e.g. the socket transport): a request waits to be sent while the connection's unsent bytes are
/// over its high-water mark; the peer's requests and messages are held back, unread, while
/// `Options.maxHandlersInFlight` handlers run or while the answers to the peer pile up unsent; a
/// reply larger than the peer accepts is replaced by an error reply.
public final class MessengerConnection: BinaryMessenger, FastPathMessenger {
    /// This side's role, sent in its HELLO.
    public let role: PeerRole
    public let options: Options

    let transport: any FrameTransport
    /// The transport again when it does flow control; nil means no input is ever held.
    let flowTransport: (any FlowControlledTransport)?
    /// Its outbound flow state, kept here so the fast path reads it without a witness call.
    let flow: OutboundFlow?
    let state: LockedValue<ConnectionState>
    /// What only the thread delivering received bytes touches, with no lock (`ReaderState`):
    /// each delivery claims the box, and a debug build checks every access against the claim.
    @exclusivity(unchecked) nonisolated(unsafe) var reader = ThreadConfined(ReaderState())

    /// Bytes of a frame the peer has begun and not finished, as of the last decoding of received
    /// bytes (0: none; frames this side holds back do not count). Asked by the thread that delivers.
    package var partialFrameByteCount: Int { reader.withValue { $0.partialFrameBytes } }

    /// Changes whenever the unfinished frame (`partialFrameByteCount`) is a new one.
    package var partialFrameNumber: Int { reader.withValue { $0.partialFrameSerial } }

    /// `state.answerRules`, read without the lock.
    let answerRules: AnswerRules
    /// Set once `state.drivenFailure` holds the driven call's outcome: lets the driver look
    /// without the lock after each read.
    let drivenFailed = Atomic<Bool>(false)
    /// The last REQUEST id taken.
    let requestIDs = Atomic<UInt32>(0)
    /// How many tasks have a `withCallScope` open, so that a call outside any looks for none.
    let openCallScopes = Atomic<Int>(0)
    /// The task with a call scope open (its address), when exactly one task has.
    let soleCallScopeTask = Atomic<UInt>(0)
    /// The largest frame the peer accepts: the protocol default until its HELLO says otherwise.
    /// Kept inline for this connection's own checks; `limit` carries the same for channels.
    let peerMaxFrameLength = Atomic<Int>(FrameDecoder.defaultMaxFrameLength)
    /// The largest frame this side may send, as an object channels keep.
    let limit: FrameLimit
    /// `options.requestBudget` on a transport that can stop reading, else nil.
    let requestBudget: RequestBudget?
    /// `options.requestGate`, kept here so the request path reads it without copying the options.
    let requestGate: RequestGate?
    /// What the budget calls, once, when a release may let this connection's waiting request in.
    let budgetWake: @Sendable () -> Void
    /// Bytes read and not yet delivered, and frames held back. Touched by the one thread
    /// delivering received bytes at a time (`FrameTransport` rule), and emptied at the end.
    let input: LockedValue<InputBuffer>
    /// True while `input` holds frames back; read without a lock by the reader before each read.
    let holdsInput = Atomic<Bool>(false)
    /// True while the reader waits for the budget before a request's body (`chargeAwaitedAtHeader`).
    /// Set in `state`'s lock when no call of this side's is pending; a call entered after that
    /// sees it and wakes the reader, since the call's reply may be behind that body.
    let readerAwaitsBudget = Atomic<Bool>(false)
    /// True while the reader delivers the frames of one read; a close asked for meanwhile waits
    /// for the end of that batch (`ConnectionLifecycle.deferClose`), so requests that arrived with
    /// the one that ended the session are answered before the GOODBYE. Set and cleared by the
    /// reader without a lock; read by `close` (see `inBatch`).
    let receivingBatch = Atomic<Bool>(false)
    /// Set by `close` before it looks at `receivingBatch`: the reader then takes `state`'s lock
    /// at the end of its batch, for a close that may have been deferred to it.
    let closeDeferred = Atomic<Bool>(false)
    /// Which large payloads the decoder splits for their consumers (`PayloadSplitter`).
    package let splitting = PayloadSplitting()

    package init(role: PeerRole, options: Options = Options(), transport: any FrameTransport) {
        self.role = role
        var options = options
        options.name = Self.truncated(options.name)
        options.maxFrameLength = max(Frame.Hello.minimumMaxFrameLength, min(options.maxFrameLength, Int(UInt32.max)))
        self.options = options
        limit = FrameLimit(own: options.maxFrameLength)
        self.transport = transport
        flowTransport = transport as? any FlowControlledTransport
        flow = flowTransport?.outboundFlow
        requestBudget = flowTransport == nil ? nil : options.requestBudget
        requestGate = options.requestGate
        let wakes = flowTransport
        budgetWake = { wakes?.inputMayResume() }
        var initial = ConnectionState()
        if flowTransport != nil { initial.maxHandlersInFlight = max(1, options.maxHandlersInFlight) }
        answerRules = initial.answerRules
        state = LockedValue(initial)
        var decoder = FrameDecoder(maxFrameLength: options.maxFrameLength)
        decoder.splitting = splitting
        self.input = LockedValue(InputBuffer(decoder: decoder))
        // Both sides send HELLO first, without waiting. Writing it here, before anyone else can
        // reach this connection, makes it the first frame whatever happens next. A maximum frame
        // length other than the default is announced, so that the peer keeps to it.
        let announced = options.maxFrameLength == FrameDecoder.defaultMaxFrameLength ? nil : options.maxFrameLength
        let hello = Frame.hello(Frame.Hello(role: role, peerName: self.options.name, maxFrameLength: announced))
        transport.write(frameOfLength: FrameEncoder.encodedLength(of: hello)) {
            FrameEncoder.storeValidated(hello, into: $0)
        }
    }

    // MARK: FastPathMessenger

    package var outboundFlow: OutboundFlow? { flow }

    package var frameLimit: FrameLimit? { limit }

    package var directConnection: MessengerConnection? { self }

    /// The largest frame this side may send now.
    var outboundFrameLimit: Int { min(options.maxFrameLength, peerMaxFrameLength.load(ordering: .relaxed)) }

    /// The peer's HELLO, once it has arrived.
    public var peerHello: Frame.Hello? { state.withLock { $0.peerHello } }

    /// Why the session ended, once it has.
    public var closeError: MessengerError? { state.withLock { $0.closeError } }

    // MARK: BinaryMessenger

    nonisolated(nonsending) public func send(onChannel channel: String, message: [UInt8]?) async throws -> [UInt8]? {
        try await request(onChannel: channel, payloadCount: message?.count ?? 0) { id in
            writeFrame(.request(id: id, channel: channel, payload: message))
        }?.array
    }

    /// A payload's large segments go out of their own arrays, uncopied (see `FrameTransport`).
    package func send(onChannel channel: String, payload: Payload) async throws -> [UInt8]? {
        try await sendKeepingParts(onChannel: channel, payload)?.array
    }

    /// `send(onChannel:payload:)`, with a reply split for the channel layer (`splitReplies`) left
    /// in its two parts.
    nonisolated(nonsending) package func sendKeepingParts(
        onChannel channel: String,
        _ payload: Payload
    ) async throws -> Payload? {
        try await request(onChannel: channel, payloadCount: payload.count) { id in
            writeRequest(id: id, channel: channel, payload: payload)
        }
    }

    /// Writes REQUEST `id` with `payload`: in one frame, unless it has segments and is large
    /// enough for its arrays to go out uncopied.
    func writeRequest(id: UInt32, channel: String, payload: Payload) {
        let count = payload.count
        if payload.isContiguous || count < Self.separatePayloadThreshold {
            writeFrame(.request(id: id, channel: channel, payload: payload.array))
        } else {
            writeFrame(.request(id: id, channel: channel, payload: []), payloadSegments: payload.parts, count: count)
        }
    }

    /// Sends a REQUEST, written by `writeRequest` once its id is registered, and waits for the reply.
    nonisolated(nonsending) private func request(
        onChannel channel: String, payloadCount: Int,
        writeRequest: (UInt32) -> Void
    ) async throws -> Payload? {
        let prepared = try prepareRequest(onChannel: channel, payloadCount: payloadCount)
        if prepared.mustWaitForRoom { await waitUntilWritable() }
        // Inside this task's call scope its handler covers the call (see `CallScope`).
        // Continuations made where this call runs, without a hop first (see `MethodChannel.invokeMethod`).
        if prepared.scopeTask != 0 {
            // Safe: resumed exactly once (see `register`).
            return try await RuntimeShim.withContinuationInheritingExecutor { continuation in
                register(prepared, channel: channel, continuation: continuation, writeRequest: writeRequest)
            }
        }
        return try await withTaskCancellationHandler {
            // Safe: resumed exactly once (see `register`).
            try await RuntimeShim.withContinuationInheritingExecutor { continuation in
                register(prepared, channel: channel, continuation: continuation, writeRequest: writeRequest)
            }
        } onCancel: {
            cancelRequest(prepared.id)
        }
    }

    /// Waits until the peer takes what is queued again. Kept out of `request`, whose common path
    /// does not wait.
    @inline(never)
    nonisolated(nonsending) package func waitUntilWritable() async {
        await flow?.waitUntilWritable()
    }

    public func post(onChannel channel: String, message: [UInt8]?) throws {
        try validate(channel: channel, payloadCount: message?.count ?? 0, fixedBodyBytes: 2 + 1)
        if let refusal = state.withLock({ $0.refusalToSend() }) {
            throw MessengerError(.connectionClosed, refusal, channel: channel)
        }
        writeFrame(.message(channel: channel, payload: message))
    }

    @discardableResult
    public func setMessageHandler(onChannel channel: String, _ handler: BinaryMessageHandler?) -> MessageHandlerToken {
        install(handler.map(ConnectionState.Handler.plain), onChannel: channel)
    }

    @discardableResult
    package func setMessageHandler(
        onChannel channel: String, _ handler: MessageHandler?, mayAnswerLater: Bool, splitter: PayloadSplitter?
    ) -> MessageHandlerToken {
        // Not through `Optional.map`: a function passed through a generic parameter is stored
        // behind reabstraction thunks, called with every request.
        guard let handler else { return install(nil, onChannel: channel) }
        return install(.answering(handler, mayAnswerLater: mayAnswerLater), onChannel: channel, splitter: splitter)
    }

    /// From now on a large REPLY payload `splitter` picks reaches the caller of `startRequest` as
    /// two parts (a `Payload` with the last part as its one segment); `send` joins them. Set by the channel layer, whose
    /// calls decode such a reply without copying its last part.
    package func splitReplies(with splitter: @escaping PayloadSplitter) {
        splitting.setReplySplitter(splitter)
    }

    private func install(
        _ handler: ConnectionState.Handler?, onChannel channel: String,
        splitter: PayloadSplitter? = nil
    ) -> MessageHandlerToken {
        // Either order is safe: a handler that cannot adopt a last part gets the payload joined.
        splitting.setRequestSplitter(handler == nil ? nil : splitter, onChannel: channel)
        return state.withLock { state in
            state.nextHandlerID += 1
            let id = state.nextHandlerID
            if state.isClosed { return MessageHandlerToken(channel: channel, id: id) }
            state.setHandler(handler.map { ConnectionState.InstalledHandler(id: id, handler: $0) }, on: channel)
            return MessageHandlerToken(channel: channel, id: id)
        }
    }

    public func removeMessageHandler(_ token: MessageHandlerToken) {
        let removed = state.withLock { state in
            guard state.handlers.id(on: token.channel) == token.id else { return false }
            state.setHandler(nil, on: token.channel)
            return true
        }
        if removed { splitting.setRequestSplitter(nil, onChannel: token.channel) }
    }

    public func onClose(_ callback: @escaping @Sendable (MessengerError) -> Void) {
        let closed = state.withLock { state -> MessengerError? in
            if let error = state.closeError { return error }
            state.closeCallbacks.append(callback)
            return nil
        }
        if let closed { callback(closed) }
    }

    // MARK: Internals shared by the extensions

    /// Withdraws request `id` if it still waits for its reply (its caller was cancelled): sends
    /// CANCEL and fails the call with `CancellationError`.
    package func cancelRequest(_ id: UInt32) {
        let (found, continuation, drained) = state.withLock {
            state -> (Bool, UnsafeContinuation<Payload?, any Error>?, Bool) in
            // No entry yet: `request` sees the cancellation when it registers the call.
            guard let call = state.pending.remove(id) else { return (false, nil, false) }
            state.noteWithdrawn(call, failure: CancellationError())
            return (true, call.continuation, state.isDrained)
        }
        guard found else { return }
        writeFrame(.cancel(id: id))
        failWithdrawn(continuation, with: CancellationError())
        if drained { finishDrained() }
    }

    /// Encodes `frame` and hands it to the transport; a large payload is passed on uncopied. The
    /// frame's sizes have been checked (`validate`, `replyFitting`).
    func writeFrame(_ frame: Frame) {
        if let payload = FrameEncoder.detachedPayload(of: frame), payload.count >= Self.separatePayloadThreshold {
            transport.write(frameOfLength: FrameEncoder.headLength(of: frame), followedBy: [payload], flush: false) {
                FrameEncoder.storeHead(of: frame, extraPayloadLength: 0, into: $0)
            }
        } else {
            transport.write(frameOfLength: FrameEncoder.encodedLength(of: frame)) {
                FrameEncoder.storeValidated(frame, into: $0)
            }
        }
    }

    /// Writes `frame` (whose payload is empty) with `payloadSegments`, `count` bytes in all, as its
    /// payload; each segment stays in its own array.
    func writeFrame(_ frame: Frame, payloadSegments: [[UInt8]], count: Int) {
        transport.write(frameOfLength: FrameEncoder.headLength(of: frame), followedBy: payloadSegments, flush: false) {
            FrameEncoder.storeHead(of: frame, extraPayloadLength: count, into: $0)
        }
    }

    @inlinable package static var separatePayloadThreshold: Int { 64 << 10 }

    static func closedBeforeReply(channel: String, _ cause: MessengerError?) -> MessengerError {
        MessengerError(
            .connectionClosed,
            "the connection closed before the reply arrived: \(cause?.message ?? "closed")",
            channel: channel)
    }

    func validate(channel: String, payloadCount: Int, fixedBodyBytes: Int) throws(MessengerError) {
        let nameLength = channel.utf8.count
        guard nameLength > 0, nameLength <= Int(UInt16.max) else {
            throw MessengerError(
                .invalidChannel,
                "a channel name must have 1 to 65,535 UTF-8 bytes, not \(nameLength)",
                channel: channel)
        }
        let frameLength = 1 + fixedBodyBytes + nameLength + payloadCount
        let limit = outboundFrameLimit
        guard frameLength <= limit else {
            let whose = limit < options.maxFrameLength ? "the peer's maximum" : "the maximum"
            throw MessengerError(
                .frameTooLarge,
                "a \(payloadCount)-byte message makes a \(frameLength)-byte frame, over \(whose) of \(limit)",
                channel: channel)
        }
    }

    private static func truncated(_ name: String) -> String {
        let limit = Int(UInt16.max)
        guard name.utf8.count > limit else { return name }
        var kept = String.UnicodeScalarView()
        var count = 0
        for scalar in name.unicodeScalars {
            count += UTF8.width(scalar)
            if count > limit { break }
            kept.append(scalar)
        }
        return String(kept)
    }
}

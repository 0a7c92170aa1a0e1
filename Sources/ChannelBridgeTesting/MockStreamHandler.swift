public import ChannelBridgeChannels
public import ChannelBridgeCodec

/// A stream handler a test installs with `TestMessenger.setMockStreamHandler(channel:codec:_:)` to
/// play the owner of an event channel that the code under test listens to (Flutter's
/// `MockStreamHandler`).
///
/// It records every `listen` and `cancel`, keeps the `EventSink` of the active stream in `events`
/// so that the test can push events, error events and the end of stream, and lets the test wait
/// for the listener. Optional closures decide the answers: throw from `onListen` to refuse a
/// listen (a `MethodError` reaches the listener as it is).
///
/// ```swift
/// let ticks = MockStreamHandler()
/// test.setMockStreamHandler(channel: "example/ticks", ticks)
/// // ... the code under test calls receiveBroadcastStream() on test.messenger ...
/// let events = try await ticks.waitForListen()
/// events.success(1)
/// events.error(MethodError(code: "SENSOR", message: "glitch"))   // the stream goes on
/// events.endOfStream()
/// let cancelArguments = try await ticks.waitForCancel()         // the listener cancels after the end
/// #expect(ticks.calls == [.listen(nil), .cancel(nil)])
/// ```
public final class MockStreamHandler: StreamHandler {
    /// Runs for each `listen` after it is recorded; throw to refuse it.
    public typealias ListenHandler = @Sendable (_ arguments: StandardValue, _ events: EventSink) async throws -> Void
    /// Runs for each `cancel` after it is recorded; throw to answer the `cancel` with an error.
    public typealias CancelHandler = @Sendable (_ arguments: StandardValue) async throws -> Void

    /// A call the listener made, with its arguments.
    public enum Call: Sendable, Hashable {
        case listen(StandardValue)
        /// Also recorded when the stream ends without a `cancel` call: the connection ended, a new
        /// `listen` replaced the stream, or the mock was replaced or removed. The arguments are
        /// then those of the `listen`.
        case cancel(StandardValue)
    }

    private struct State: Sendable {
        var calls: [Call] = []
        /// From the start of a `listen` until it is refused or its stream is cancelled.
        var streaming = false
        /// The sink of the active stream, once its `listen` succeeded.
        var events: EventSink?
        var cancels = 0
        var lastCancelArguments: StandardValue = .null
    }

    private let state = Observed(State())
    private let listenHandler: ListenHandler?
    private let cancelHandler: CancelHandler?

    /// - Parameters:
    ///   - onListen: decides each `listen`; without one every `listen` succeeds.
    ///   - onCancel: decides each `cancel`; without one every `cancel` succeeds.
    public init(onListen: ListenHandler? = nil, onCancel: CancelHandler? = nil) {
        self.listenHandler = onListen
        self.cancelHandler = onCancel
    }

    /// Every `listen` and `cancel` so far, in order.
    public var calls: [Call] {
        state.read { $0.calls }
    }

    /// The sink of the active stream: `nil` before a successful `listen` and after the stream is
    /// cancelled. Events sent after the cancel are dropped, as on any `EventSink`.
    public var events: EventSink? {
        state.read { $0.events }
    }

    /// Whether a listener is currently listening.
    public var isListening: Bool {
        state.read { $0.events != nil }
    }

    /// Waits until a stream is active (at once if one is) and returns its sink.
    ///
    /// - Throws: `CancellationError` when the calling task is cancelled first.
    public func waitForListen() async throws -> EventSink {
        while true {
            await state.wait { $0.events != nil }
            if let events = state.read({ $0.events }) { return events }
            // Cancelled, or the stream ended again before this task ran: wait for the next one.
            try Task.checkCancellation()
        }
    }

    /// Waits until the stream has been cancelled: at least one `cancel` has been recorded and no
    /// stream is active or starting. Returns the arguments of the latest `cancel`.
    ///
    /// - Throws: `CancellationError` when the calling task is cancelled first.
    public func waitForCancel() async throws -> StandardValue {
        await state.wait { $0.cancels > 0 && !$0.streaming }
        try Task.checkCancellation()
        return state.read { $0.lastCancelArguments }
    }

    // MARK: StreamHandler

    public func onListen(arguments: StandardValue, events: EventSink) async throws {
        state.update { state in
            state.calls.append(.listen(arguments))
            state.streaming = true
        }
        do {
            try await listenHandler?(arguments, events)
        } catch {
            state.update { $0.streaming = false }
            throw error
        }
        state.update { $0.events = events }
    }

    public func onCancel(arguments: StandardValue) async throws {
        state.update { state in
            state.calls.append(.cancel(arguments))
            state.streaming = false
            state.events = nil
            state.cancels += 1
            state.lastCancelArguments = arguments
        }
        try await cancelHandler?(arguments)
    }
}

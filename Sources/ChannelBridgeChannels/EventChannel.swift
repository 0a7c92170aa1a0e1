public import ChannelBridgeCodec
public import ChannelBridgeMessenger
import ChannelBridgePlatform

/// A named channel for a stream of events, with Flutter's semantics.
///
/// The listener calls `listen` on the channel; the owner answers, then sends events as MESSAGE
/// frames on the same name (a success envelope per event, an error envelope per error event, a null
/// message at the end) until the listener calls `cancel`.
///
/// Events are `MethodEnvelope`s (`EventChannel.Event`): an error event is `.error(MethodError)` and
/// does not end the stream, as in Flutter. The stream throws only when it cannot go on: the owner
/// refused the `listen`, an event could not be decoded, or the connection ended.
///
/// ```swift
/// // Owner side:
/// EventChannel(name: "channelbridge/ticks", messenger: messenger).setStreamHandler(Ticker())
///
/// // Listener side:
/// let ticks = EventChannel(name: "channelbridge/ticks", messenger: messenger)
/// for try await event in ticks.receiveBroadcastStream() {
///     let tick = try event.get()   // or switch on .success / .error to keep going past errors
/// }
/// ```
public final class EventChannel: Sendable {
    /// One event: `.success(value)` or `.error(MethodError)`; `event.get()` throws the error.
    public typealias Event = MethodEnvelope

    private struct State {
        var owner: EventStreamOwner?
        var ownerToken: MessageHandlerToken?
        var subscription: EventSubscription?
    }

    /// In a class of its own so that the close callback can hold it without holding the channel.
    private final class Shared: Sendable {
        let state = LockedValue(State())
    }

    /// The default event buffer of a stream whose listener is behind (see `EventSink`).
    public static let defaultMaxBufferedBytes = EventSinkCore.defaultMaxBufferedBytes
    /// The default buffer of a listener's stream whose consumer is behind.
    public static let defaultListenerMaxBufferedBytes = 16 << 20

    public let name: String
    public let messenger: any BinaryMessenger
    public let codec: any MethodCodec
    private let methods: MethodChannel
    /// The listener side's `listen` and `cancel` calls, sent one after another in the order made.
    private let requests = SerialQueue()
    private let shared = Shared()

    public init(name: String, messenger: any BinaryMessenger, codec: some MethodCodec = StandardMethodCodec()) {
        self.name = name
        self.messenger = messenger
        self.codec = codec
        self.methods = MethodChannel(name: name, messenger: messenger, codec: codec)
    }

    /// The error code of the event that ends a stream whose listener fell too far behind.
    public static let overflowErrorCode = "STREAM_OVERFLOW"
    /// The error code of the event sent instead of one larger than the listener accepts.
    public static let eventTooLargeErrorCode = "EVENT_TOO_LARGE"

    /// Installs (or, with `nil`, removes) the owner side of the channel.
    ///
    /// Replacing or removing the handler ends the active stream for its listener (a null message)
    /// and calls the old handler's `onCancel`.
    ///
    /// - Parameter maxBufferedBytes: how many bytes of events may wait for a listener that is
    ///   behind before its stream ends for overflow (see `EventSink`); 4 MiB by default.
    public func setStreamHandler(
        _ handler: (any StreamHandler)?,
        maxBufferedBytes: Int = EventChannel.defaultMaxBufferedBytes
    ) {
        let previous = shared.state.withLock { state -> EventStreamOwner? in
            let previous = state.owner
            // Messenger calls run under the lock so the kept token is the one the messenger kept.
            // Lock order: this channel's lock, then the messenger's; safe because a messenger never
            // calls back from setMessageHandler / removeMessageHandler (`BinaryMessenger`).
            if let handler {
                let owner = EventStreamOwner(
                    channel: name, messenger: messenger, codec: codec, handler: handler,
                    maxBufferedBytes: maxBufferedBytes)
                state.owner = owner
                state.ownerToken = messenger.installMessageHandler(
                    onChannel: name, InTaskHandler.make { try await owner.handle($0) }, mayAnswerLater: true)
            } else {
                if let token = state.ownerToken { messenger.removeMessageHandler(token) }
                state.owner = nil
                state.ownerToken = nil
            }
            return previous
        }
        previous?.retire()
        // The end of the connection cancels the owner's stream (`CloseObservers` holds the owner
        // until it is retired).
        if let owner = shared.state.withLock({ $0.owner }) { CloseObservers.shared.add(owner, for: messenger) }
    }

    /// Listens to the owner's stream: sends `listen` with `arguments` and yields its events.
    ///
    /// - The stream finishes at the owner's end of stream.
    /// - An error event is yielded as `.error(MethodError)` and the stream goes on, as in Flutter.
    /// - It throws the `listen` refusal (`MethodError`, or `ChannelError.notImplemented` when
    ///   nothing owns the channel), `ChannelError.malformedEvent` for an undecodable event, or
    ///   `ChannelError.connectionClosed` (the messenger's error as `messengerError`) when the
    ///   connection ends.
    /// - When it terminates — the consumer's task is cancelled, the stream is released after the
    ///   consumer stopped iterating, an end of stream, an undecodable event — `cancel` is sent with
    ///   the same arguments, so the owner's `onCancel` runs (as Flutter's listener does).
    /// - A second call on this channel object replaces the first: the owner cancels the first
    ///   stream when it gets the new `listen`, and the first stream finishes without error.
    ///
    /// Events that arrive before the `listen` reply are delivered. One listener per channel name
    /// and messenger: a listener on another `EventChannel` object with the same name takes over the
    /// messenger's handler for that name.
    ///
    /// Events wait in the stream until the consumer takes them. When more than `maxBufferedBytes`
    /// of them wait (16 MiB by default), the consumer has fallen too far behind: the stream throws
    /// `ChannelError.streamOverflow` naming the channel, and `cancel` is sent (wire protocol §4.10).
    public func receiveBroadcastStream(
        arguments: StandardValue = .null,
        maxBufferedBytes: Int = EventChannel.defaultListenerMaxBufferedBytes
    )
        -> AsyncThrowingStream<Event, any Error>
    {
        // Unbounded in count (the bytes are what is bounded); a bounded policy makes `yield` say
        // how many events wait, which is how the bytes waiting are known.
        let (stream, continuation) = AsyncThrowingStream.makeStream(
            of: Event.self, throwing: (any Error).self, bufferingPolicy: .bufferingOldest(Int.max))
        let subscription = EventSubscription(
            methods: methods, requests: requests, arguments: arguments,
            continuation: continuation, maxBufferedBytes: maxBufferedBytes)
        let previous = shared.state.withLock { state -> EventSubscription? in
            let previous = state.subscription
            state.subscription = subscription
            // Under the lock so that the handler the messenger keeps is the current subscription's.
            // Lock order: this channel's lock, then the messenger's and the subscription's; neither
            // calls back into the channel while installing.
            subscription.installHandler()
            return previous
        }
        previous?.supersede()
        // The end of the connection ends the stream (one registration per messenger: see
        // `CloseObservers`, which holds the subscription until its stream ends).
        CloseObservers.shared.add(subscription, for: messenger)
        subscription.listen()
        return stream
    }
}

public import ChannelBridgeCodec

/// Sends the events of one stream to its listener (Flutter's `EventSink`).
///
/// Each call sends one MESSAGE frame on the event channel: a success envelope per event, an error
/// envelope per error, a null message at the end. Calls after the end of the stream, or after the
/// stream was cancelled or replaced, are ignored, as are sends on a connection that has ended (the
/// stream is cancelled then). Events sent before the `listen` reply is out are held back until it is.
///
/// **A listener that falls behind** (wire protocol §4.10). While the listener's connection has
/// more unsent bytes than its high-water mark, events wait in the sink instead of piling up in the
/// connection. A producer picks how it keeps up:
/// - `success(_:)` never waits. Up to the stream's buffer limit (`EventChannel.setStreamHandler`'s
///   `maxBufferedBytes`, 4 MiB by default) events wait in order; beyond it the stream ends for
///   overflow: the listener gets the error event `STREAM_OVERFLOW` naming the channel, then the end
///   of the stream, and the handler's `onCancel` runs.
/// - `success(_:coalescingKey:)` keeps only the latest waiting event per key (for a stream of
///   changes to keyed state), so the buffer is bounded by the number of keys.
/// - `await send(_:)` suspends until there is room, so the stream never overflows.
///
/// ```swift
/// for await change in changes {
///     events.success(["key": .string(change.key), "value": change.value], coalescingKey: change.key)
/// }
/// // or, for a producer that can wait:
/// for reading in readings { guard await events.send(.float64(reading)) else { break } }
/// ```
public struct EventSink: Sendable {
    let core: EventSinkCore

    /// Sends one event; see the type's notes for what happens while the listener is behind.
    public func success(_ event: StandardValue) {
        core.send(event)
    }

    /// Sends one event that replaces any event with the same `coalescingKey` (the same code units:
    /// canonically equivalent spellings are different keys) still waiting for the listener (it keeps
    /// that event's place). Events with other keys, or none, keep their order.
    public func success(_ event: StandardValue, coalescingKey: String) {
        core.send(event, coalescingKey: coalescingKey)
    }

    /// Sends one event, first waiting while the listener is behind (the connection is over its
    /// high-water mark, or earlier events still wait). Returns false, without sending, once the
    /// stream has ended, been cancelled or replaced, or the calling task is cancelled.
    @discardableResult
    public func send(_ event: StandardValue) async -> Bool {
        await core.sendWhenReady(event)
    }

    /// Sends an error event. The listener's stream stays open, as in Flutter.
    public func error(_ error: MethodError) {
        core.send(error)
    }

    /// Ends the stream; the listener's stream finishes.
    public func endOfStream() {
        core.end()
    }

    /// False once the stream has ended, been cancelled or replaced; a producer can stop then.
    public var isActive: Bool {
        core.isActive
    }
}

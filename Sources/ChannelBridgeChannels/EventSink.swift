import ChannelBridgeCodec

/// Sends the events of one stream to its listener (Flutter's `EventSink`).
///
/// Each call sends one MESSAGE frame on the event channel: a success envelope per event, an error
/// envelope per error, a null message at the end. Calls after the end of the stream, or after the
/// stream was cancelled or replaced, are ignored, as are sends on a connection that has ended (the
/// stream is cancelled then). Events sent before the `listen` reply is out are held back until it is.
public struct EventSink: Sendable {
    let core: EventSinkCore

    /// Sends one event.
    public func success(_ event: StandardValue) {
        core.send(event)
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

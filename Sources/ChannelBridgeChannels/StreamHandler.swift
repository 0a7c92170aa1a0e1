public import ChannelBridgeCodec

/// The owner side of an `EventChannel`: starts and stops the stream of events for a listener
/// (Flutter's `StreamHandler`).
///
/// `onCancel` is called exactly once for every stream whose `onListen` succeeded: when the listener
/// cancels (a listener also cancels after the end of the stream), when a second `listen` replaces
/// the stream, when the channel's stream handler is replaced or removed, or when the connection
/// ends. Calls to one handler never overlap.
///
/// ```swift
/// final class Ticker: StreamHandler {
///     private let producer = Mutex<Task<Void, Never>?>(nil)
///
///     func onListen(arguments: StandardValue, events: EventSink) async throws {
///         producer.withLock { $0 = Task {
///             for n in 0..<3 { events.success(.int(n)) }
///             events.endOfStream()
///         } }
///     }
///
///     func onCancel(arguments: StandardValue) async throws {
///         // Cancelled after unlocking: cancelling runs the task's cancellation handlers here.
///         let task = producer.withLock { producer in
///             defer { producer = nil }
///             return producer
///         }
///         task?.cancel()
///     }
/// }
/// ```
public protocol StreamHandler: Sendable {
    /// Starts the stream. Events may be sent through `events` at once and for as long as the
    /// stream lasts; the listener gets the `listen` reply before the first of them. Throwing
    /// refuses the listen: a `MethodError` is sent as it is, anything else as code `"error"`.
    func onListen(arguments: StandardValue, events: EventSink) async throws

    /// Stops the stream. `arguments` are those of the `cancel` call, or of the `listen` call when
    /// the stream ends for another reason. Throwing answers the `cancel` call with an error.
    func onCancel(arguments: StandardValue) async throws
}

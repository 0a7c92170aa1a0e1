import ChannelBridgeChannels
import ChannelBridgeCodec
import ChannelBridgePlatform
public import Foundation

/// Sends the events of a stream (Flutter's `FlutterEventSink`): call it with a value for an
/// event, a `FlutterError` for an error event (the stream goes on), or `FlutterEndOfEventStream`
/// to end it. It may be called from any thread.
public typealias FlutterEventSink = (_ event: Any?) -> Void

/// The owner side of an event channel (Flutter's `FlutterStreamHandler`).
///
/// ```swift
/// final class Ticker: NSObject, FlutterStreamHandler {
///     func onListen(withArguments arguments: Any?, eventSink events: @escaping FlutterEventSink) -> FlutterError? {
///         events(1); events(2); events(FlutterEndOfEventStream)
///         return nil
///     }
///     func onCancel(withArguments arguments: Any?) -> FlutterError? { nil }
/// }
/// FlutterEventChannel(name: "example/ticks", binaryMessenger: engine).setStreamHandler(Ticker())
/// ```
public protocol FlutterStreamHandler: AnyObject {
    /// Starts the stream; return a `FlutterError` to refuse the listen.
    func onListen(withArguments arguments: Any?, eventSink events: @escaping FlutterEventSink) -> FlutterError?
    /// Stops the stream. `arguments` are `nil` when a new listen replaces the stream or the
    /// engine is torn down.
    func onCancel(withArguments arguments: Any?) -> FlutterError?
}

/// A named channel for a stream of events (Flutter's `FlutterEventChannel`), on any
/// `FlutterBinaryMessenger`: the other side calls `listen` and `cancel`; each event is a one-way
/// message holding a success envelope, an error event an error envelope, the end of the stream a
/// null message.
///
/// As on iOS: a `listen` while a stream is active cancels it first (`onCancel(withArguments: nil)`);
/// a `cancel` with no active stream is answered with an error (`"error"`, "No active stream to
/// cancel"); other methods get a null reply. As on Android (iOS keeps sending them), a sink's
/// events are dropped once its stream has ended, been cancelled or replaced, so a stale sink
/// cannot write into a newer stream; and a stream whose `onListen` failed is not active. Beyond
/// Flutter: when the engine is torn down (the session ended), the active stream's `onCancel`
/// runs with `nil` arguments, so a handler can release what it holds.
// @unchecked: every stored property is a `let` but `connection`, which only setStreamHandler touches, called (as on iOS) from one thread at a time.
open class FlutterEventChannel: NSObject, @unchecked Sendable {
    // @unchecked: immutable except `connection`, set from the thread that installs handlers.
    public let name: String
    public let binaryMessenger: any FlutterBinaryMessenger
    public let codec: any FlutterMethodCodec
    public let taskQueue: (any FlutterTaskQueue)?
    private var connection: FlutterBinaryMessengerConnection = 0

    public init(
        name: String, binaryMessenger messenger: any FlutterBinaryMessenger, codec: any FlutterMethodCodec,
        taskQueue: (any FlutterTaskQueue)?
    ) {
        self.name = name
        self.binaryMessenger = messenger
        self.codec = codec
        self.taskQueue = taskQueue
        super.init()
    }

    public convenience init(
        name: String, binaryMessenger messenger: any FlutterBinaryMessenger, codec: any FlutterMethodCodec
    ) {
        self.init(name: name, binaryMessenger: messenger, codec: codec, taskQueue: nil)
    }

    /// With `FlutterStandardMethodCodec.sharedInstance()`.
    public convenience init(name: String, binaryMessenger messenger: any FlutterBinaryMessenger) {
        self.init(name: name, binaryMessenger: messenger, codec: FlutterStandardMethodCodec.sharedInstance())
    }

    /// Installs (or, with `nil`, removes) the owner of this channel's stream.
    public func setStreamHandler(_ handler: (any NSObjectProtocol & FlutterStreamHandler)?) {
        guard let handler else {
            ChannelHandlers.remove(connection, on: binaryMessenger, channel: name)
            connection = 0
            return
        }
        let stream = EventStream(channel: name, messenger: binaryMessenger, codec: codec, handler: handler)
        FlutterEngine.catalogue(name, kind: .event, codec: codec, on: binaryMessenger)
        connection = ChannelHandlers.install(
            { [name = self.name] message, reply in
                // Recorded for the report of a fatal signal; `handle` records the method once decoded.
                RunningHandler.recording(channel: name, method: nil) { stream.handle(message, reply) }
            }, on: binaryMessenger, channel: name, taskQueue: taskQueue)
        if let engine = binaryMessenger as? FlutterEngine {
            let owned = Handoff(stream)
            engine.onTeardown(on: engine.executor(for: taskQueue)) { owned.value.engineTornDown() }
        }
    }
}

/// The state of one installed stream handler. `handle` and `engineTornDown` run on the handler's
/// executor, one at a time; sinks may be used from any thread.
final class EventStream {
    let channel: String
    let messenger: any FlutterBinaryMessenger
    let codec: any FlutterMethodCodec
    let handler: any FlutterStreamHandler
    private var current: EventStreamSink?

    init(
        channel: String, messenger: any FlutterBinaryMessenger, codec: any FlutterMethodCodec,
        handler: any FlutterStreamHandler
    ) {
        self.channel = channel
        self.messenger = messenger
        self.codec = codec
        self.handler = handler
    }

    func handle(_ message: Data?, _ reply: ChannelReply) {
        let call: FlutterMethodCall
        do throws(CodecError) {
            guard let message else { throw CodecError(.invalidMethodCall, "method call payload is null") }
            call = try MethodCoding.decodeCall(message, codec)
        } catch {
            reply.send(
                MethodCoding.encodeError(
                    FlutterError(code: "malformed", message: error.description, details: nil), codec))
            return
        }
        RunningHandler.recording(channel: channel, method: call.method) { answer(call, reply) }
    }

    private func answer(_ call: FlutterMethodCall, _ reply: ChannelReply) {
        switch call.method {
        case "listen":
            if let previous = current {
                previous.deactivate()
                current = nil
                if let error = handler.onCancel(withArguments: nil) {
                    FlutterLog.error(
                        "Failed to cancel existing stream: \(error.code). \(error.message ?? "") (\(error.details ?? "nil"))"
                    )
                }
            }
            let sink = EventStreamSink(channel: channel, messenger: messenger, codec: codec)
            current = sink
            if let error = handler.onListen(withArguments: call.arguments, eventSink: sink.callable) {
                sink.deactivate()
                current = nil
                reply.send(MethodCoding.encodeError(error, codec))
            } else {
                reply.send(try? MethodCoding.encodeSuccess(nil, codec))
            }
        case "cancel":
            guard let active = current else {
                reply.send(
                    MethodCoding.encodeError(
                        FlutterError(code: "error", message: "No active stream to cancel", details: nil), codec))
                return
            }
            active.deactivate()
            current = nil
            if let error = handler.onCancel(withArguments: call.arguments) {
                reply.send(MethodCoding.encodeError(error, codec))
            } else {
                reply.send(try? MethodCoding.encodeSuccess(nil, codec))
            }
        default:
            reply.send(nil)
        }
    }

    func engineTornDown() {
        guard let active = current else { return }
        active.deactivate()
        current = nil
        if let error = handler.onCancel(withArguments: nil) {
            FlutterLog.error(
                "Failed to cancel the stream on channel \(channel) at teardown: \(error.code). \(error.message ?? "")")
        }
    }
}

/// One stream's sink: sends while its stream is active. Not ChannelBridge's `EventSinkCore`, which
/// holds events until the `listen` reply is out and bounds what waits on a full connection: this
/// sink keeps iOS's order (events sent in `onListen` go out before the reply) and sends through
/// any `FlutterBinaryMessenger`, whose own `send` decides what a full connection does.
// @unchecked: `let`s only; whether the stream is active is a LockedValue.
final class EventStreamSink: @unchecked Sendable {
    // @unchecked: `active` is behind a lock; the rest is immutable, and the messenger and codec are
    // used from any thread as on iOS (sinks may be called from any thread there too).
    let channel: String
    let messenger: any FlutterBinaryMessenger
    let codec: any FlutterMethodCodec
    private let active = LockedValue(true)

    init(channel: String, messenger: any FlutterBinaryMessenger, codec: any FlutterMethodCodec) {
        self.channel = channel
        self.messenger = messenger
        self.codec = codec
    }

    func deactivate() {
        active.withLock { $0 = false }
    }

    var callable: FlutterEventSink {
        { [self] event in send(event) }
    }

    func send(_ event: Any?) {
        let value = event.flatMap(FlutterValues.unwrap)
        let ending = (value as? NSObject) === FlutterEndOfEventStream
        let proceed = active.withLock { active -> Bool in
            guard active else { return false }
            if ending { active = false }
            return true
        }
        guard proceed else { return }
        if ending {
            messenger.send(onChannel: channel, message: nil)
        } else if let error = value as? FlutterError {
            messenger.send(onChannel: channel, message: MethodCoding.encodeError(error, codec))
        } else {
            do {
                messenger.send(onChannel: channel, message: try MethodCoding.encodeSuccess(value, codec))
            } catch {
                let failure = "Cannot encode an event on channel \(channel): \(error)"
                FlutterLog.error(failure)
                messenger.send(
                    onChannel: channel,
                    message: MethodCoding.encodeError(
                        FlutterError(code: "error", message: failure, details: nil), codec))
            }
        }
    }
}

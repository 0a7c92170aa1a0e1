public import Foundation

/// A reply to a binary message: the reply's bytes, or `nil` for a null reply ("no handler").
///
/// The one a handler is given may be called from any thread, once; a second call is ignored with
/// a logged warning.
public typealias FlutterBinaryReply = (_ reply: Data?) -> Void

/// Handles one incoming binary message and answers it through `reply`, at once or later.
public typealias FlutterBinaryMessageHandler = (_ message: Data?, _ reply: @escaping FlutterBinaryReply) -> Void

/// Identifies one handler installed with `setMessageHandlerOnChannel(_:binaryMessageHandler:)`;
/// `cleanUpConnection(_:)` removes it only while it is still the channel's handler.
public typealias FlutterBinaryMessengerConnection = Int64

/// A queue that handlers of a channel run on instead of the platform executor; made by
/// `FlutterBinaryMessenger.makeBackgroundTaskQueue`.
public protocol FlutterTaskQueue: AnyObject {}

/// Sends and receives binary messages by channel name: the layer under every channel (Flutter's
/// `FlutterBinaryMessenger`). `FlutterEngine` implements it over a ChannelBridge session.
///
/// ```swift
/// let connection = engine.setMessageHandlerOnChannel("example/echo") { message, reply in
///     reply(message)
/// }
/// engine.send(onChannel: "example/log", message: Data("hello".utf8))
/// engine.cleanUpConnection(connection)
/// ```
///
/// Differences from iOS, where the protocol has optional Objective-C requirements:
/// - `makeBackgroundTaskQueue` is an optional closure property, so that
///   `messenger.makeBackgroundTaskQueue?()` reads as it does on iOS; a messenger that has no task
///   queues leaves it `nil` (the default).
/// - `setMessageHandlerOnChannel(_:binaryMessageHandler:taskQueue:)` is a plain requirement whose
///   default ignores the task queue, where iOS would find no method to call.
public protocol FlutterBinaryMessenger: AnyObject {
    /// Makes a serial queue for handlers that should not run on the platform executor; `nil` when
    /// this messenger has none.
    var makeBackgroundTaskQueue: (() -> any FlutterTaskQueue)? { get }

    /// Installs `handler` for `channel` (or removes the channel's handler, with `nil`), running it
    /// on `taskQueue` instead of the platform executor.
    @discardableResult
    func setMessageHandlerOnChannel(
        _ channel: String, binaryMessageHandler handler: FlutterBinaryMessageHandler?,
        taskQueue: (any FlutterTaskQueue)?
    ) -> FlutterBinaryMessengerConnection

    /// Sends a message that expects no reply.
    func send(onChannel channel: String, message: Data?)

    /// Sends a message; `callback` gets the reply (`nil` for a null reply) on the platform executor.
    func send(onChannel channel: String, message: Data?, binaryReply callback: FlutterBinaryReply?)

    /// Installs `handler` for `channel`, replacing any earlier one; `nil` removes it.
    @discardableResult
    func setMessageHandlerOnChannel(
        _ channel: String,
        binaryMessageHandler handler: FlutterBinaryMessageHandler?
    ) -> FlutterBinaryMessengerConnection

    /// Removes the handler installed as `connection`, if it is still the channel's handler.
    func cleanUpConnection(_ connection: FlutterBinaryMessengerConnection)
}

extension FlutterBinaryMessenger {
    public var makeBackgroundTaskQueue: (() -> any FlutterTaskQueue)? { nil }

    @discardableResult
    public func setMessageHandlerOnChannel(
        _ channel: String, binaryMessageHandler handler: FlutterBinaryMessageHandler?,
        taskQueue: (any FlutterTaskQueue)?
    ) -> FlutterBinaryMessengerConnection {
        setMessageHandlerOnChannel(channel, binaryMessageHandler: handler)
    }
}

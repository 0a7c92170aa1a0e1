import ChannelBridgeChannels
import ChannelBridgeCodec
import ChannelBridgePlatform
public import Foundation

/// A named channel for method calls (Flutter's `FlutterMethodChannel`), on any
/// `FlutterBinaryMessenger`.
///
/// ```swift
/// // Seed 000's share extension, unchanged:
/// let shareExtensionChannel = FlutterMethodChannel(name: "share_extension", binaryMessenger: engine)
/// shareExtensionChannel.setMethodCallHandler { (call: FlutterMethodCall, result: @escaping FlutterResult) in
///     switch call.method {
///     case "exit": extensionContext.completeRequest(returningItems: nil)
///     default: result(FlutterMethodNotImplemented)
///     }
/// }
/// ```
///
/// A handler answers through `result`, once, from any thread: a value for a success envelope, a
/// `FlutterError` for an error envelope, `FlutterMethodNotImplemented` for a null reply. A second
/// call is ignored with a logged warning. Where iOS would assert, this channel answers instead:
/// a message that is not a method call gets an error envelope with code `malformed`, and a result
/// the codec cannot encode an error envelope with code `error` naming the method and channel.
// @unchecked: every stored property is a `let` but `connection`, which only setMethodCallHandler touches, called (as on iOS) from one thread at a time.
open class FlutterMethodChannel: NSObject, @unchecked Sendable {
    // @unchecked: immutable except `connection`, which is set from the thread that installs
    // handlers (as on iOS, where that is the main thread).
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

    /// Calls `method` on the other side, expecting no result.
    public func invokeMethod(_ method: String, arguments: Any?) {
        invokeMethod(method, arguments: arguments, result: nil)
    }

    /// Calls `method` on the other side; `callback` gets the result, a `FlutterError`, or
    /// `FlutterMethodNotImplemented` for a null reply, on the platform executor. An undecodable
    /// reply gives a `FlutterError` with code `malformed`.
    public func invokeMethod(_ method: String, arguments: Any?, result callback: FlutterResult?) {
        let message: Data
        do {
            message = try MethodCoding.encodeCall(FlutterMethodCall(methodName: method, arguments: arguments), codec)
        } catch {
            let failure = "Cannot encode the call to \(method) on channel \(name): \(error)"
            FlutterLog.error(failure)
            callback?(FlutterError(code: "error", message: failure, details: nil))
            return
        }
        guard let callback else {
            binaryMessenger.send(onChannel: name, message: message)
            return
        }
        let (codec, name) = (self.codec, self.name)
        binaryMessenger.send(onChannel: name, message: message) { reply in
            guard let reply else {
                callback(FlutterMethodNotImplemented)
                return
            }
            do {
                callback(try MethodCoding.decodeEnvelope(reply, codec))
            } catch {
                callback(
                    FlutterError(
                        code: "malformed",
                        message: "Cannot decode the reply to \(method) on channel \(name): \(error)",
                        details: nil))
            }
        }
    }

    /// Installs (or, with `nil`, removes) the handler for calls on this channel, replacing any
    /// other handler of the channel.
    public func setMethodCallHandler(_ handler: FlutterMethodCallHandler?) {
        guard let handler else {
            ChannelHandlers.remove(connection, on: binaryMessenger, channel: name)
            connection = 0
            return
        }
        let (codec, name) = (self.codec, self.name)
        FlutterEngine.catalogue(name, kind: .method, codec: codec, on: binaryMessenger)
        connection = ChannelHandlers.install(
            { message, reply in
                // Recorded for the report of a fatal signal: the channel while a codec (which may be
                // the plugin's own reader) decodes, and the method while the handler runs.
                var decoded: Result<FlutterMethodCall, CodecError>?
                if let message {
                    RunningHandler.recording(channel: name, method: nil) {
                        decoded = Result { () throws(CodecError) in try MethodCoding.decodeCall(message, codec) }
                    }
                }
                let call: FlutterMethodCall
                switch decoded ?? .failure(CodecError(.invalidMethodCall, "method call payload is null")) {
                case .success(let decodedCall):
                    call = decodedCall
                case .failure(let error):
                    reply.send(
                        MethodCoding.encodeError(
                            FlutterError(code: "malformed", message: error.description, details: nil), codec))
                    return
                }
                let once = Once()
                RunningHandler.recording(channel: name, method: call.method) {
                    handler(call) { result in
                        guard once.claim() else {
                            FlutterLog.warning(
                                "The result of \(call.method) on channel \(name) was sent more than once; "
                                    + "the later one is ignored")
                            return
                        }
                        reply.send(Self.envelope(for: result, of: call, on: name, codec: codec))
                    }
                }
            }, on: binaryMessenger, channel: name, taskQueue: taskQueue)
    }

    /// The reply for what a handler answered: `nil` for not implemented, an error envelope for a
    /// `FlutterError` or a result the codec cannot encode, else a success envelope.
    static func envelope(
        for result: Any?, of call: FlutterMethodCall, on channel: String,
        codec: any FlutterMethodCodec
    ) -> Data? {
        let value = result.flatMap(FlutterValues.unwrap)
        if let object = value as? NSObject, object === FlutterMethodNotImplemented { return nil }
        if let error = value as? FlutterError { return MethodCoding.encodeError(error, codec) }
        do {
            return try MethodCoding.encodeSuccess(value, codec)
        } catch {
            let failure = "Cannot encode the result of \(call.method) on channel \(channel): \(error)"
            return MethodCoding.encodeError(FlutterError(code: "error", message: failure, details: nil), codec)
        }
    }

    /// Sends `resize` to `dev.flutter/channel-buffers`, as iOS does; a ChannelBridge peer with no
    /// channel buffers ignores it.
    public func resizeChannelBuffer(_ newSize: Int) {
        ChannelBuffers.resize(name, to: newSize, on: binaryMessenger)
    }
}

/// Flutter's control channel for the Dart side's channel buffers.
enum ChannelBuffers {
    static let channel = "dev.flutter/channel-buffers"

    static func resize(_ name: String, to size: Int, on messenger: any FlutterBinaryMessenger) {
        let call = FlutterMethodCall(methodName: "resize", arguments: [name, Int32(clamping: size)])
        messenger.send(onChannel: channel, message: FlutterStandardMethodCodec.sharedInstance().encode(call))
    }

    static func setWarnsOnOverflow(_ warns: Bool, for name: String, on messenger: any FlutterBinaryMessenger) {
        let call = FlutterMethodCall(methodName: "overflow", arguments: [name, !warns])
        messenger.send(onChannel: channel, message: FlutterStandardMethodCodec.sharedInstance().encode(call))
    }
}

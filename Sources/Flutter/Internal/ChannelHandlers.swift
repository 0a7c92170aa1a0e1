import ChannelBridgeCodec
import ChannelBridgePlatform
import Foundation

/// The reply a channel's handler owes for one message, on any messenger: through a
/// `FlutterEngine` it can also answer with a failure (REPLY status 2 with a reason), which the
/// plain `FlutterBinaryReply` cannot carry.
struct ChannelReply: Sendable {
    let send: @Sendable (Data?) -> Void
    let fail: (@Sendable (String) -> Void)?

    /// A failure where the messenger can carry one; otherwise the reason is logged and the
    /// message answered with a null reply.
    func failOrNull(_ reason: String) {
        if let fail {
            fail(reason)
        } else {
            FlutterLog.error(reason)
            send(nil)
        }
    }
}

enum ChannelHandlers {
    /// Installs `handler` on `channel` of `messenger`, on `taskQueue`; `nil` removes the
    /// channel's handler. Returns the connection.
    static func install(
        _ handler: ((Data?, ChannelReply) -> Void)?, on messenger: any FlutterBinaryMessenger,
        channel: String, taskQueue: (any FlutterTaskQueue)?
    ) -> FlutterBinaryMessengerConnection {
        guard let handler else {
            return messenger.setMessageHandlerOnChannel(channel, binaryMessageHandler: nil, taskQueue: taskQueue)
        }
        let called = Handoff(handler)
        if let engine = messenger as? FlutterEngine {
            return engine.install(
                { message, reply in
                    called.value(message, ChannelReply(send: { reply.send($0) }, fail: { reply.fail($0) }))
                }, onChannel: channel, taskQueue: taskQueue)
        }
        let plain: FlutterBinaryMessageHandler = { message, reply in
            let sending = Handoff(reply)
            called.value(message, ChannelReply(send: { sending.value($0) }, fail: nil))
        }
        if let taskQueue {
            return messenger.setMessageHandlerOnChannel(channel, binaryMessageHandler: plain, taskQueue: taskQueue)
        }
        return messenger.setMessageHandlerOnChannel(channel, binaryMessageHandler: plain)
    }

    /// Removes what `install` installed: by connection when there is one, else the channel's handler.
    static func remove(
        _ connection: FlutterBinaryMessengerConnection, on messenger: any FlutterBinaryMessenger,
        channel: String
    ) {
        if connection > 0 {
            messenger.cleanUpConnection(connection)
        } else {
            messenger.setMessageHandlerOnChannel(channel, binaryMessageHandler: nil)
        }
    }
}

/// Encoding and decoding through a message codec, with errors where the codec can give them.
enum MessageCoding {
    static func decode(_ message: Data?, _ codec: any FlutterMessageCodec) throws(CodecError) -> Any? {
        if let checked = codec as? any CheckedMessageCodec { return try checked.checkedDecode(message) }
        return codec.decode(message)
    }

    static func encode(_ message: Any?, _ codec: any FlutterMessageCodec) throws(CodecError) -> Data? {
        if let checked = codec as? any CheckedMessageCodec { return try checked.checkedEncode(message) }
        return codec.encode(message)
    }
}

/// The same for method codecs.
enum MethodCoding {
    static func decodeCall(_ message: Data, _ codec: any FlutterMethodCodec) throws(CodecError) -> FlutterMethodCall {
        if let checked = codec as? any CheckedMethodCodec { return try checked.checkedDecodeMethodCall(message) }
        return codec.decodeMethodCall(message)
    }

    static func encodeCall(_ call: FlutterMethodCall, _ codec: any FlutterMethodCodec) throws(CodecError) -> Data {
        if let checked = codec as? any CheckedMethodCodec { return try checked.checkedEncode(call) }
        return codec.encode(call)
    }

    static func encodeSuccess(_ result: Any?, _ codec: any FlutterMethodCodec) throws(CodecError) -> Data {
        if let checked = codec as? any CheckedMethodCodec { return try checked.checkedEncodeSuccessEnvelope(result) }
        return codec.encodeSuccessEnvelope(result)
    }

    /// The error envelope; when its details cannot be encoded, the code and message without them.
    static func encodeError(_ flutterError: FlutterError, _ codec: any FlutterMethodCodec) -> Data {
        guard let checked = codec as? any CheckedMethodCodec else { return codec.encodeErrorEnvelope(flutterError) }
        do {
            return try checked.checkedEncodeErrorEnvelope(flutterError)
        } catch {
            let message = (flutterError.message.map { $0 + " " } ?? "") + "(details not encodable: \(error))"
            return codec.encodeErrorEnvelope(FlutterError(code: flutterError.code, message: message, details: nil))
        }
    }

    static func decodeEnvelope(_ envelope: Data, _ codec: any FlutterMethodCodec) throws(CodecError) -> Any? {
        if let checked = codec as? any CheckedMethodCodec { return try checked.checkedDecodeEnvelope(envelope) }
        return codec.decodeEnvelope(envelope)
    }
}

/// Lets a `FlutterResult` (or event sink) through once; later calls are logged and ignored.
final class Once: Sendable {
    private let done = LockedValue(false)

    func claim() -> Bool {
        done.withLock { done in
            defer { done = true }
            return !done
        }
    }
}

import ChannelBridgeChannels
import ChannelBridgeCodec
import ChannelBridgePlatform
public import Foundation

/// A named channel for messages with replies, encoded with a message codec (Flutter's
/// `FlutterBasicMessageChannel`), on any `FlutterBinaryMessenger`. Pigeon's generated Swift uses
/// it for every method.
///
/// ```swift
/// let channel = FlutterBasicMessageChannel(name: "example/echo", binaryMessenger: engine,
///                                          codec: FlutterStandardMessageCodec.sharedInstance())
/// channel.setMessageHandler { message, reply in reply(message) }
/// channel.sendMessage(["ping"]) { reply in print(reply ?? "no reply") }
/// ```
///
/// A handler answers through `reply`, once, from any thread. Where iOS would assert, this channel
/// (over a `FlutterEngine`) answers with a failure naming the channel: for a message the codec
/// cannot decode, and for a reply it cannot encode.
// @unchecked: every stored property is a `let` but `connection`, which only setMessageHandler touches, called (as on iOS) from one thread at a time.
open class FlutterBasicMessageChannel: NSObject, @unchecked Sendable {
    // @unchecked: immutable except `connection`, set from the thread that installs handlers.
    public let name: String
    public let binaryMessenger: any FlutterBinaryMessenger
    public let codec: any FlutterMessageCodec
    public let taskQueue: (any FlutterTaskQueue)?
    private var connection: FlutterBinaryMessengerConnection = 0

    public init(
        name: String, binaryMessenger messenger: any FlutterBinaryMessenger, codec: any FlutterMessageCodec,
        taskQueue: (any FlutterTaskQueue)?
    ) {
        self.name = name
        self.binaryMessenger = messenger
        self.codec = codec
        self.taskQueue = taskQueue
        super.init()
    }

    public convenience init(
        name: String, binaryMessenger messenger: any FlutterBinaryMessenger, codec: any FlutterMessageCodec
    ) {
        self.init(name: name, binaryMessenger: messenger, codec: codec, taskQueue: nil)
    }

    /// With `FlutterStandardMessageCodec.sharedInstance()`.
    public convenience init(name: String, binaryMessenger messenger: any FlutterBinaryMessenger) {
        self.init(name: name, binaryMessenger: messenger, codec: FlutterStandardMessageCodec.sharedInstance())
    }

    /// Sends `message`, ignoring any reply.
    public func sendMessage(_ message: Any?) {
        sendMessage(message, reply: nil)
    }

    /// Sends `message`; `callback` gets the decoded reply (`nil` for a null reply) on the platform
    /// executor. A message the codec cannot encode is not sent: it is logged and `callback` gets
    /// `nil`; an undecodable reply is logged and gives `nil`.
    public func sendMessage(_ message: Any?, reply callback: FlutterReply?) {
        let data: Data?
        do {
            data = try MessageCoding.encode(message, codec)
        } catch {
            FlutterLog.error("Cannot encode the message on channel \(name): \(error)")
            callback?(nil)
            return
        }
        guard let callback else {
            binaryMessenger.send(onChannel: name, message: data)
            return
        }
        let (codec, name) = (self.codec, self.name)
        binaryMessenger.send(onChannel: name, message: data) { reply in
            do {
                callback(try MessageCoding.decode(reply, codec))
            } catch {
                FlutterLog.error("Cannot decode the reply on channel \(name): \(error)")
                callback(nil)
            }
        }
    }

    /// Installs (or, with `nil`, removes) the handler for messages on this channel, replacing any
    /// other handler of the channel.
    public func setMessageHandler(_ handler: FlutterMessageHandler?) {
        guard let handler else {
            ChannelHandlers.remove(connection, on: binaryMessenger, channel: name)
            connection = 0
            return
        }
        let (codec, name) = (self.codec, self.name)
        FlutterEngine.catalogue(name, kind: .message, codec: codec, on: binaryMessenger)
        connection = ChannelHandlers.install(
            { data, reply in
                // Recorded for the report of a fatal signal, the codec's decoding included: Pigeon's
                // reader force-casts what it reads.
                RunningHandler.recording(channel: name, method: nil) {
                    let message: Any?
                    do {
                        message = try MessageCoding.decode(data, codec)
                    } catch {
                        reply.failOrNull("Cannot decode the message on channel \(name): \(error)")
                        return
                    }
                    let once = Once()
                    handler(message) { answer in
                        guard once.claim() else {
                            FlutterLog.warning(
                                "A reply on channel \(name) was sent more than once; the later one is ignored")
                            return
                        }
                        do {
                            reply.send(try MessageCoding.encode(answer, codec))
                        } catch {
                            reply.failOrNull("Cannot encode the reply on channel \(name): \(error)")
                        }
                    }
                }
            }, on: binaryMessenger, channel: name, taskQueue: taskQueue)
    }

    /// Sends `resize` to `dev.flutter/channel-buffers`, as iOS does.
    public func resizeChannelBuffer(_ newSize: Int) {
        ChannelBuffers.resize(name, to: newSize, on: binaryMessenger)
    }

    public class func resizeChannel(
        withName name: String, binaryMessenger messenger: any FlutterBinaryMessenger, size newSize: Int
    ) {
        ChannelBuffers.resize(name, to: newSize, on: messenger)
    }

    /// Sends `overflow` to `dev.flutter/channel-buffers`, as iOS does.
    public func setWarnsOnOverflow(_ warns: Bool) {
        ChannelBuffers.setWarnsOnOverflow(warns, for: name, on: binaryMessenger)
    }

    public class func setWarnsOnOverflow(
        _ warns: Bool, forChannelWithName name: String,
        binaryMessenger messenger: any FlutterBinaryMessenger
    ) {
        ChannelBuffers.setWarnsOnOverflow(warns, for: name, on: messenger)
    }
}

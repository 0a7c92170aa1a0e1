public import ChannelBridgeCodec
public import ChannelBridgeMessenger

/// A named channel for plain messages with a reply, encoded with a `MessageCodec` (Flutter's
/// `BasicMessageChannel`).
///
/// A `nil` message or reply is a null payload on the wire, distinct from an empty one, as in
/// Flutter, where a null message is "no message" whatever the codec.
///
/// ```swift
/// let channel = BasicMessageChannel(name: "channelbridge/echo", messenger: messenger, codec: StringCodec())
/// channel.setMessageHandler { message in message.map { "echo: " + $0 } }
/// let reply = try await channel.send("hello")   // "echo: hello" from the other side's handler
/// ```
public final class BasicMessageChannel<Codec: MessageCodec>: Sendable {
    /// A handler for incoming messages: return the reply (`nil` for a null reply). A thrown error
    /// is reported to the sender as a handler failure (`MessengerError.handlerFailed`).
    public typealias Handler = @Sendable (Codec.Message?) async throws -> Codec.Message?

    public let name: String
    public let messenger: any BinaryMessenger
    public let codec: Codec
    private let slot = HandlerSlot()

    public init(name: String, messenger: any BinaryMessenger, codec: Codec) {
        self.name = name
        self.messenger = messenger
        self.codec = codec
    }

    /// Sends `message` and returns the reply, `nil` for a null reply.
    ///
    /// - Throws: `ChannelError`: `unencodable`, `malformedReply`, `timedOut`, or, when the messenger
    ///   failed the message, `connectionClosed`, `handlerFailed`, ... (its error as `messengerError`).
    public func send(_ message: Codec.Message?, timeout: Duration? = nil) async throws -> Codec.Message? {
        let payload: [UInt8]?
        do {
            payload = try message.map(codec.encode)
        } catch {
            throw ChannelError(.unencodable, "Cannot encode the message: \(error)", channel: name, codecError: error)
        }
        let (name, messenger) = (self.name, self.messenger)
        let reply: [UInt8]?
        if let timeout {
            reply = try await withTimeout(
                timeout,
                onTimeout: {
                    ChannelError.timedOut(channel: name, method: nil, after: timeout)
                }
            ) {
                try await Self.send(payload, on: name, messenger: messenger)
            }
        } else {
            reply = try await Self.send(payload, on: name, messenger: messenger)
        }
        guard let reply else { return nil }
        do {
            return try codec.decode(reply)
        } catch {
            throw ChannelError(.malformedReply, "Cannot decode the reply: \(error)", channel: name, codecError: error)
        }
    }

    private static func send(
        _ payload: [UInt8]?, on channel: String,
        messenger: any BinaryMessenger
    ) async throws -> [UInt8]? {
        do {
            return try await messenger.send(onChannel: channel, message: payload)
        } catch let error as MessengerError {
            throw ChannelError(error, channel: channel)
        }
    }

    /// Installs (or, with `nil`, removes) the handler for messages arriving on this channel.
    ///
    /// Messages reach the handler in arrival order. A message the codec cannot decode is answered
    /// as a handler failure naming the channel. Removing only removes the handler this channel
    /// object installed.
    public func setMessageHandler(_ handler: Handler?) {
        guard let handler else {
            slot.install(nil, on: messenger, channel: name)
            return
        }
        let (name, codec) = (self.name, self.codec)
        slot.install(
            { payload in
                let message: Codec.Message?
                do throws(CodecError) {
                    message = try payload.map(codec.decode)
                } catch {
                    throw ChannelError(
                        .malformedMessage, "Cannot decode the message: \(error)", channel: name,
                        codecError: error)
                }
                let reply = try await handler(message)
                do throws(CodecError) {
                    return try reply.map(codec.encode)
                } catch {
                    throw ChannelError(
                        .unencodable, "Cannot encode the reply: \(error)", channel: name, codecError: error)
                }
            }, on: messenger, channel: name)
    }
}

public import ChannelBridgeCodec

// Typed messages on a channel whose codec carries Standard values (`StandardMessageCodec`,
// `JSONMessageCodec`): messages and replies any Codable type.
extension BasicMessageChannel where Codec.Message == StandardValue {
    /// Sends `message` encoded as a Standard value and decodes the reply as `Reply`. A null reply
    /// (no handler, or a handler that answered nil) decodes as `nil` when `Reply` is optional.
    ///
    /// ```swift
    /// let channel = BasicMessageChannel(name: "example/points", messenger: messenger, codec: StandardMessageCodec())
    /// let nearest = try await channel.send(Point(x: 1, y: 2), as: Point?.self)
    /// ```
    ///
    /// - Throws: what `send(_:timeout:)` throws; `ChannelError` with code `unencodable` when the
    ///   message cannot be encoded, or `malformedReply` when the reply does not decode as `Reply`.
    public func send<Reply: Decodable>(
        _ message: some Encodable, as type: Reply.Type, timeout: Duration? = nil,
        encoder: StandardValueEncoder = StandardValueEncoder(), decoder: StandardValueDecoder = StandardValueDecoder()
    ) async throws -> Reply {
        let reply = try await send(try encodeMessage(message, encoder), timeout: timeout) ?? .null
        do {
            return try decoder.decode(Reply.self, from: reply)
        } catch {
            throw ChannelError(
                .malformedReply, "The reply is not \(Reply.self): \(codingErrorMessage(error))", channel: name)
        }
    }

    /// Sends `message` and ignores the reply.
    public func send(
        _ message: some Encodable, as type: Void.Type, timeout: Duration? = nil,
        encoder: StandardValueEncoder = StandardValueEncoder()
    ) async throws {
        _ = try await send(try encodeMessage(message, encoder), timeout: timeout)
    }

    /// Installs a handler for messages decoded as `Message` (a null message decodes as `nil` when
    /// `Message` is optional), whose result is encoded as the reply.
    ///
    /// A message that does not decode as `Message` is not given to `handler`: the sender gets a
    /// handler failure (`MessengerError.handlerFailed`) whose message names the channel and the path,
    /// as for any message the codec cannot decode.
    ///
    /// ```swift
    /// channel.setMessageHandler(as: Point.self) { point in Point(x: point.x.rounded(), y: point.y.rounded()) }
    /// ```
    public func setMessageHandler<Message: Decodable & SendableMetatype, Reply: Encodable & SendableMetatype>(
        as type: Message.Type,
        encoder: StandardValueEncoder = StandardValueEncoder(), decoder: StandardValueDecoder = StandardValueDecoder(),
        _ handler: @escaping @Sendable (Message) async throws -> Reply
    ) {
        let name = self.name
        setMessageHandler { message in
            let decoded: Message
            do {
                decoded = try decoder.decode(Message.self, from: message ?? .null)
            } catch {
                throw ChannelError(
                    .malformedMessage, "The message is not \(Message.self): \(codingErrorMessage(error))",
                    channel: name)
            }
            let reply = try await handler(decoded)
            do {
                return try encoder.encode(reply)
            } catch {
                throw ChannelError(.unencodable, "Cannot encode the reply: \(codingErrorMessage(error))", channel: name)
            }
        }
    }

    private func encodeMessage(
        _ message: some Encodable, _ encoder: StandardValueEncoder
    ) throws(ChannelError) -> StandardValue {
        do {
            return try encoder.encode(message)
        } catch {
            throw ChannelError(.unencodable, "Cannot encode the message: \(codingErrorMessage(error))", channel: name)
        }
    }
}

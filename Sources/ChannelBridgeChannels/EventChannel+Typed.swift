public import ChannelBridgeCodec

// Typed event streams: each event decoded as the type asked for.
extension EventChannel {
    /// Listens to the owner's stream, as `receiveBroadcastStream(arguments:)`, with `arguments`
    /// encoded as Standard values and each event decoded as `Event`.
    ///
    /// Elements are `Result<Event, MethodError>`: an error event is `.failure` and the stream goes
    /// on, as in Flutter; `try event.get()` gives the value or throws the error. An event that does
    /// not decode as `Event` ends the stream with `ChannelError.malformedEvent` naming the path, and
    /// the stream is cancelled as for any other end.
    ///
    /// ```swift
    /// for try await tick in ticks.receiveBroadcastStream(arguments: TickOptions(every: 5), as: Tick.self) {
    ///     print(try tick.get().count)
    /// }
    /// ```
    public func receiveBroadcastStream<Event: Decodable & SendableMetatype>(
        arguments: some Encodable, as type: Event.Type,
        encoder: StandardValueEncoder = StandardValueEncoder(), decoder: StandardValueDecoder = StandardValueDecoder()
    ) throws -> some AsyncSequence<Result<Event, MethodError>, any Error> {
        let encoded: StandardValue
        do {
            encoded = try encoder.encode(arguments)
        } catch {
            throw ChannelError(
                .unencodable, "Cannot encode the listen arguments: \(codingErrorMessage(error))",
                channel: name, method: "listen")
        }
        return decodedEvents(receiveBroadcastStream(arguments: encoded), decoder)
    }

    /// Listens with no arguments (null), each event decoded as `Event`.
    public func receiveBroadcastStream<Event: Decodable & SendableMetatype>(
        as type: Event.Type, decoder: StandardValueDecoder = StandardValueDecoder()
    ) -> some AsyncSequence<Result<Event, MethodError>, any Error> {
        decodedEvents(receiveBroadcastStream(arguments: .null), decoder)
    }

    /// The events of `stream` decoded one by one as they are consumed: no task and no buffer of
    /// its own, and dropping it drops the underlying stream, which cancels the subscription.
    private func decodedEvents<Event: Decodable & SendableMetatype>(
        _ stream: AsyncThrowingStream<EventChannel.Event, any Error>, _ decoder: StandardValueDecoder
    ) -> some AsyncSequence<Result<Event, MethodError>, any Error> {
        let name = self.name
        return stream.map { envelope throws -> Result<Event, MethodError> in
            switch envelope {
            case .error(let error):
                return .failure(error)
            case .success(let value):
                do {
                    return .success(try decoder.decode(Event.self, from: value))
                } catch {
                    throw ChannelError(
                        .malformedEvent, "An event is not \(Event.self): \(codingErrorMessage(error))",
                        channel: name)
                }
            }
        }
    }
}

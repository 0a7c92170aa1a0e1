public import ChannelBridgeCodec

extension EventSink {
    /// Sends one event, `event` encoded as a Standard value.
    ///
    /// ```swift
    /// try events.success(encoding: Tick(count: n))
    /// ```
    ///
    /// - Throws: `EncodingError` when `event` cannot be encoded; nothing is sent then.
    public func success(encoding event: some Encodable, encoder: StandardValueEncoder = StandardValueEncoder()) throws {
        success(try encoder.encode(event))
    }
}

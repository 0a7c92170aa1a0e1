public import ChannelBridgeChannels
import ChannelBridgeCodec

extension ExtensionHostClient {
    /// The channels the host serves this session, by name (`listChannels` on
    /// `channelbridge/reflection`, Protocol/reflection.md).
    ///
    /// ```swift
    /// let names = try await client.listChannels().map(\.name)
    /// ```
    ///
    /// - Throws: `ChannelError` `notImplemented` when the host serves no reflection; what
    ///   `invokeMethod` throws; `ChannelError` `malformedReply` for a reply that is not a list of
    ///   channel descriptions.
    public func listChannels() async throws -> [ChannelDescription] {
        let reply = try await invokeMethod("listChannels", onChannel: ChannelCatalog.reflectionChannel)
        guard case .list(let list) = reply else {
            throw ChannelError(
                .malformedReply, "listChannels answered \(reply.dartTypeName), not a List",
                channel: ChannelCatalog.reflectionChannel, method: "listChannels")
        }
        return try list.map { value in
            guard let description = ChannelDescription(value) else {
                throw ChannelError(
                    .malformedReply, "listChannels answered an element that is no channel description",
                    channel: ChannelCatalog.reflectionChannel, method: "listChannels")
            }
            return description
        }
    }
}

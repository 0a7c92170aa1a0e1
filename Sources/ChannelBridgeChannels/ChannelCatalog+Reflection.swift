public import ChannelBridgeCodec

extension ChannelCatalog {
    /// The reflection channel's name (Protocol/reflection.md).
    public static let reflectionChannel = "channelbridge/reflection"

    /// How reflection describes itself.
    public static let reflectionDescription = ChannelDescription(
        name: reflectionChannel, kind: .method, codec: "standard",
        methods: [MethodDescription(name: "listChannels", summary: "-> List of channel descriptions, by name")],
        summary: "The channels this session serves (channelbridge list)")

    /// Answers a call on the reflection channel, for `MethodChannel.setMethodCallHandler`:
    /// `listChannels` gives every channel's `standardValue`, by name.
    ///
    /// - Throws: `MethodNotImplemented` for any other method.
    public func answerReflection(_ call: MethodCall) throws -> StandardValue {
        guard call.method == "listChannels" else { throw MethodNotImplemented() }
        return .list(channels.map(\.standardValue))
    }
}

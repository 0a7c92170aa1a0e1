public import ChannelBridgeCodec
public import ChannelBridgeMessenger

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

    /// Serves this catalog on `channelbridge/reflection` over `messenger`, and lists that channel
    /// in it, so that `channelbridge list` reads what the session serves. Each `listChannels`
    /// reads the catalog as it is then, so channels added later are listed too.
    ///
    /// ```swift
    /// let catalog = ChannelCatalog()
    /// catalog.add(ChannelDescription(name: "example/countdown", kind: .event, codec: "standard"))
    /// let reflection = catalog.serveReflection(on: session.messenger)
    /// // …
    /// reflection.setMethodCallHandler(nil)   // when the session's channels go
    /// ```
    ///
    /// A `PluginRegistry` does this for its own catalog with `serveReflection()`, removing the
    /// handler at teardown.
    ///
    /// - Returns: the reflection channel, whose handler (replacing any it had) stays until it is
    ///   removed with `setMethodCallHandler(nil)` or the messenger closes.
    @discardableResult
    public func serveReflection(on messenger: any BinaryMessenger) -> MethodChannel {
        add(Self.reflectionDescription)
        let channel = MethodChannel(name: Self.reflectionChannel, messenger: messenger)
        channel.setSynchronousMethodCallHandler { [self] call in try answerReflection(call) }
        return channel
    }
}

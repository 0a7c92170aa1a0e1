import ChannelBridgeChannels
import ChannelBridgePlugins
import ChannelBridgePlatform

extension FlutterEngine {
    /// Serves the channels of this engine's session on `channelbridge/reflection`
    /// (Protocol/reflection.md), so that `channelbridge list` prints them: every `Flutter` channel
    /// whose handler is set on this engine (kind and codec; no methods, which a closure handler
    /// cannot declare) and every channel of its registry's plugins. It is its `registry`'s
    /// `serveReflection()`: once per engine, removed when the registry is torn down.
    ///
    /// ```swift
    /// let listener = try SocketListener(path: path) { session in
    ///     let engine = FlutterEngine(messenger: session.messenger)
    ///     ShareHostApiSetup.setUp(binaryMessenger: engine, api: ShareHostApiImplementation())
    ///     engine.serveReflection()
    /// }
    /// ```
    ///
    /// A host built on `ExtensionHostCommand` serves reflection already; there, this is not needed.
    public func serveReflection() {
        registry.serveReflection()
    }

    /// Lists a channel whose handler is being installed on `messenger` in its engine's catalog
    /// (`State.channels`), for reflection (`channelbridge list`). Runs when a handler is set,
    /// never per message; a messenger that is no engine lists nothing.
    static func catalogue(
        _ name: String, kind: ChannelDescription.Kind, codec: Any,
        on messenger: any FlutterBinaryMessenger
    ) {
        guard let engine = messenger as? FlutterEngine, let channels = engine.state.withLock({ $0.channels }) else {
            return
        }
        channels.addSetUp(ChannelDescription(name: name, kind: kind, codec: codecName(codec)))
    }

    private static func codecName(_ codec: Any) -> String {
        switch codec {
        case is FlutterStandardMethodCodec, is FlutterStandardMessageCodec: "standard"
        case is FlutterJSONMethodCodec, is FlutterJSONMessageCodec: "json"
        case is FlutterStringCodec: "string"
        case is FlutterBinaryCodec: "binary"
        default: String(describing: type(of: codec))
        }
    }
}

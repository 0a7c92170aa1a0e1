// `import ChannelBridge`: everything a plugin, a client or a containing app is written with, in
// one module, as `import Flutter` is for an iOS plugin. The layers stay modules of their own (a
// target may import just the one it needs); this module declares nothing and re-exports them:
//
// - ChannelBridgeCodec: Flutter's codecs, `StandardValue`, typed values (`StandardValueEncoder`).
// - ChannelBridgeMessenger: `BinaryMessenger`, `MessengerConnection`, `MessengerError`.
// - ChannelBridgeChannels: `MethodChannel`, `BasicMessageChannel`, `EventChannel`, `MethodRouter`.
// - ChannelBridgePlugins: `Plugin`, `PluginRegistrar`, `PluginRegistry`, `PluginCatalogue`.
// - ChannelBridgeSocket: the Unix-socket transport (`SocketConnection`, `SocketListener`).
// - ChannelBridgeClient: typed calls to an extension host (`ExtensionHostClient`).
// - ChannelBridgeStore and ChannelBridgeSharedPreferences: the app-group store and its plugin.
//
// Hosting (`ChannelBridgeHost`), test doubles (`ChannelBridgeTesting`), the codec conformance
// runner (`ChannelBridgeConformance`) and Flutter's iOS API (`Flutter`) are products of their own.
@_exported public import ChannelBridgeChannels
@_exported public import ChannelBridgeClient
@_exported public import ChannelBridgeCodec
@_exported public import ChannelBridgeMessenger
@_exported public import ChannelBridgePlugins
@_exported public import ChannelBridgeSharedPreferences
@_exported public import ChannelBridgeSocket
@_exported public import ChannelBridgeStore

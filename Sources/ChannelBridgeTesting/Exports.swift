// `MockHost` serves a transcript: the contracts' model (`Transcript`, `ValuePattern`) comes with
// `import ChannelBridgeTesting`, so a test imports this module and `ChannelBridge` and no more.
@_exported public import ChannelBridgeContracts

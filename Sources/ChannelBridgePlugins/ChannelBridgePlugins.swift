// Module ChannelBridgePlugins.

// Module ChannelBridgeHost.

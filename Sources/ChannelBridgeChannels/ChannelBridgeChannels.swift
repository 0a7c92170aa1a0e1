// Module ChannelBridgeChannels.

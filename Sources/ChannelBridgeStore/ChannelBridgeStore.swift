// Module ChannelBridgeStore.

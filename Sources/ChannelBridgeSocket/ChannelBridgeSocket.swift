// Module ChannelBridgeSocket.

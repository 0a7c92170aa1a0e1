// Module ChannelBridgeTesting.

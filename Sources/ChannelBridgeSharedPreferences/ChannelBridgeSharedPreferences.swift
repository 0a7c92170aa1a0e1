// Module ChannelBridgeSharedPreferences.

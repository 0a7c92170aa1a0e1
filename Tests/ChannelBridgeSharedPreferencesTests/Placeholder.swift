import Testing

@Test func placeholder_ChannelBridgeSharedPreferencesTests() {}

import Testing

@Test func placeholder_ChannelBridgeChannelsTests() {}

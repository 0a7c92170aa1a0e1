import Testing

@Test func placeholder_ChannelBridgeHostTests() {}

import Testing

@Test func placeholder_ChannelBridgeSocketTests() {}

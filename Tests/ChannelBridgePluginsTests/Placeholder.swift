import Testing

@Test func placeholder_ChannelBridgePluginsTests() {}

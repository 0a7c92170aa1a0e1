import Testing

@Test func placeholder_ChannelBridgeMessengerTests() {}

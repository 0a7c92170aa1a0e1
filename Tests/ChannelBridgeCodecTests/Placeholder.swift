import Testing

@Test func placeholder_ChannelBridgeCodecTests() {}

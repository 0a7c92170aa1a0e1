// Placeholder until the peer is written.
print("channelbridge-test-peer")

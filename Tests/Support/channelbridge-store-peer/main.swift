print("channelbridge-store-peer")

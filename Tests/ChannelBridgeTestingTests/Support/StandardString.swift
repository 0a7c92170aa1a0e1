import ChannelBridgeTestSupport

/// A Standard-codec string value written by hand (lengths under 254): tag 7, length, UTF-8.
func standardString(_ text: String) -> [UInt8] {
    precondition(text.utf8.count < 254)
    return [0x07, UInt8(text.utf8.count)] + utf8(text)
}

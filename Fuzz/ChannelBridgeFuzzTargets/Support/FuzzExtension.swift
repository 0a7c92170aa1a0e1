import ChannelBridgeCodec

/// A codec extension of the usual shape, so the fuzzer reaches the reader's extension path: tag
/// 0x80 is a byte payload with a Standard size, tag 0x81 wraps one nested Standard value (which
/// counts as a nesting level, codec.md §6.3).
struct FuzzExtension: StandardCodecExtension {
    struct Blob: CustomStandardValue {
        var bytes: [UInt8]
        var customTag: UInt8 { 0x80 }
    }

    struct Box: CustomStandardValue {
        var inner: StandardValue
        var customTag: UInt8 { 0x81 }
    }

    func writeValue(_ value: CustomValue, to writer: inout StandardWriter) throws(CodecError) -> Bool {
        if let blob = value.as(Blob.self) {
            writer.writeByte(0x80)
            writer.writeSize(blob.bytes.count)
            writer.writeBytes(blob.bytes)
            return true
        }
        if let box = value.as(Box.self) {
            writer.writeByte(0x81)
            try writer.writeValue(box.inner)
            return true
        }
        return false
    }

    func readValue(ofType type: UInt8, from reader: inout StandardReader) throws(CodecError) -> StandardValue? {
        switch type {
        case 0x80:
            let count = try reader.readSize()
            return .custom(CustomValue(Blob(bytes: try reader.readBytes(count))))
        case 0x81:
            return .custom(CustomValue(Box(inner: try reader.readValue())))
        default:
            return nil
        }
    }
}

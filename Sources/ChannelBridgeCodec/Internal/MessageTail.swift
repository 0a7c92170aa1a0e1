/// The last part of a message received in two parts, which `StandardMessageCodec.read(head:tail:)`
/// keeps alive while its reader reads (`StandardReader.tail`).
final class MessageTail {
    let bytes: [UInt8]

    init(_ bytes: [UInt8]) {
        self.bytes = bytes
    }
}

/// Flutter's `BinaryCodec`: the message is its bytes, unchanged.
public struct BinaryCodec: MessageCodec {
    public typealias Message = [UInt8]

    public init() {}

    public func encode(_ message: [UInt8]) throws(CodecError) -> [UInt8] { message }
    public func decode(_ bytes: [UInt8]) throws(CodecError) -> [UInt8] { bytes }
}

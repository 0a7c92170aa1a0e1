/// Flutter's `StringCodec`: a message is UTF-8 text. Invalid UTF-8 is refused, not repaired.
public struct StringCodec: MessageCodec {
    public typealias Message = String

    public init() {}

    public func encode(_ message: String) throws(CodecError) -> [UInt8] {
        Array(message.utf8)
    }

    public func decode(_ bytes: [UInt8]) throws(CodecError) -> String {
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw CodecError(.invalidUTF8, "message is not valid UTF-8", offset: invalidUTF8Offset(bytes))
        }
        return text
    }
}

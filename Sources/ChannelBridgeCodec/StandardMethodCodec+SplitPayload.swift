/// Method calls and envelopes received in two parts: a messenger that reads a
/// large payload can keep its last bytes, a `Uint8List`'s content, in an array of their own, so
/// that the decoded value is that array rather than a copy of it.
extension StandardMethodCodec {
    /// Where the content of a `Uint8List` that ends the call starts, when the call's arguments are
    /// that one `Uint8List`: `prefix` is the call's first bytes, `count` its length. `nil` when
    /// the call has another shape or `prefix` ends before the list's size does.
    package static func byteListStart(inCall prefix: UnsafeRawBufferPointer, count: Int) -> Int? {
        var reader = StandardReader(prefix, maxDepth: 1, extensionBox: nil)
        guard (try? reader.readByte()) == StandardEncoding.string, let nameCount = try? reader.readSize(),
            nameCount <= reader.remaining
        else { return nil }
        reader.skip(nameCount)
        return byteListEnding(&reader, count: count)
    }

    /// Where the content of a `Uint8List` that is a success envelope's whole result starts; see
    /// `byteListStart(inCall:count:)`.
    package static func byteListStart(inEnvelope prefix: UnsafeRawBufferPointer, count: Int) -> Int? {
        var reader = StandardReader(prefix, maxDepth: 1, extensionBox: nil)
        guard (try? reader.readByte()) == 0 else { return nil }
        return byteListEnding(&reader, count: count)
    }

    private static func byteListEnding(_ reader: inout StandardReader, count: Int) -> Int? {
        guard (try? reader.readByte()) == StandardEncoding.uint8List, let size = try? reader.readSize(), size > 0,
            reader.offset + size == count
        else { return nil }
        return reader.offset
    }

    /// `decodeMethodCall(in:)` of a call received as `head` followed by `tail`; the result (or
    /// error) is the one the call in one piece gives.
    package func decodeMethodCall(head: UnsafeRawBufferPointer, tail: [UInt8]) throws(CodecError) -> MethodCall {
        try messageCodec.read(head: head, tail: tail) { (reader: inout StandardReader) throws(CodecError) in
            try Self.readCall(&reader)
        }
    }

    /// `decodeEnvelope` of an envelope received as `head` followed by `tail`; the result (or
    /// error) is the one the envelope in one piece gives.
    package func decodeEnvelope(head: [UInt8], tail: [UInt8]) throws(CodecError) -> MethodEnvelope {
        let result: Result<MethodEnvelope, CodecError> = head.withUnsafeBytes { raw in
            Result { () throws(CodecError) in
                try messageCodec.read(head: raw, tail: tail) { (reader: inout StandardReader) throws(CodecError) in
                    try Self.readEnvelope(&reader)
                }
            }
        }
        return try result.get()
    }
}

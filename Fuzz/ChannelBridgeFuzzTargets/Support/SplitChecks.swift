import ChannelBridgeCodec

/// A call or envelope received in two parts decodes as the whole message does (large byte lists,
/// as `bulk` sends): split where a connection would (before a trailing `Uint8List`'s content) or,
/// for any other shape, in the middle, which exercises the fallback to the joined message.
enum SplitChecks {
    static func call(_ input: [UInt8], whole: Result<MethodCall, CodecError>, _ codec: StandardMethodCodec) {
        guard let at = splitPoint(input, StandardMethodCodec.byteListStart(inCall:count:)) else { return }
        let tail = Array(input[at...])
        let parts = Array(input[..<at]).withUnsafeBytes { head in
            Result { () throws(CodecError) in try codec.decodeMethodCall(head: head, tail: tail) }
        }
        require(parts == whole, "the call split at \(at) decodes to \(parts), the whole call to \(whole)")
    }

    static func envelope(_ input: [UInt8], whole: Result<MethodEnvelope, CodecError>, _ codec: StandardMethodCodec) {
        guard let at = splitPoint(input, StandardMethodCodec.byteListStart(inEnvelope:count:)) else { return }
        let parts = Result { () throws(CodecError) in
            try codec.decodeEnvelope(head: Array(input[..<at]), tail: Array(input[at...]))
        }
        require(parts == whole, "the envelope split at \(at) decodes to \(parts), the whole envelope to \(whole)")
    }

    private static func splitPoint(_ input: [UInt8], _ hint: (UnsafeRawBufferPointer, Int) -> Int?) -> Int? {
        if let hinted = input.withUnsafeBytes({ hint($0, input.count) }) { return hinted }
        return input.count >= 2 ? input.count / 2 : nil
    }
}

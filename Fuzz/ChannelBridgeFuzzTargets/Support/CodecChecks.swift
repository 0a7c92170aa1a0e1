import ChannelBridgeBytes
import ChannelBridgeCodec

/// The checks the codec targets share.
enum CodecChecks {
    /// Codes a Standard decoder may fail with.
    static let standardCodes: Set<CodecError.Code> = [
        .unknownType, .truncated, .trailingBytes, .invalidUTF8,
        .sizeTooLarge, .nestingTooDeep,
    ]
    /// Codes a JSON codec's decoder may fail with.
    static let jsonCodes: Set<CodecError.Code> = [.invalidJSON, .nestingTooDeep]

    /// A decoding failure names one of `codes` and an offset inside the input (its end included).
    static func decodingError(_ error: CodecError, _ input: [UInt8], _ codes: Set<CodecError.Code>) {
        require(codes.contains(error.code), "decoding failed with code \(error.code): \(error)")
        require(
            error.offset.map { (0...input.count).contains($0) } == true,
            "decoding error at offset \(String(describing: error.offset)) of \(input.count) bytes: \(error)")
    }

    /// `body` must not throw: `what` is a law of the codec.
    static func must<T>(_ what: String, _ body: () throws(CodecError) -> T) -> T {
        do {
            return try body()
        } catch {
            finding("\(what) failed: \(error)")
        }
    }

    /// The laws a value decoded by the Standard codec obeys: it encodes, decodes back to itself
    /// (floats bit for bit), its encoding is a fixed point, its canonical TVN reads back to it,
    /// and its segmented encoding is the same bytes.
    static func standardLaws(_ value: StandardValue, codec: StandardMessageCodec = StandardMessageCodec()) {
        let bytes = must("encoding a decoded value") { () throws(CodecError) in try codec.encode(value) }
        let again = must("decoding an encoding") { () throws(CodecError) in try codec.decode(bytes) }
        require(again == value, "decode(encode(v)) != v for \(value)")
        require(
            must("re-encoding") { () throws(CodecError) in try codec.encode(again) } == bytes,
            "encoding is not a fixed point for \(value)")
        guard codec.codecExtension == nil else { return }
        let text = TypedValueNotation.canonicalText(value)
        let parsed = must("parsing canonical TVN") { () throws(CodecError) in try TypedValueNotation.parse(text) }
        require(parsed == value, "Standard -> TVN -> Standard changed the value: \(text)")
        require(TypedValueNotation.canonicalText(parsed) == text, "canonical TVN is not a fixed point: \(text)")
        let method = StandardMethodCodec(codec)
        let segments = must("segmented success envelope") { () throws(CodecError) in
            try method.encodeSuccessEnvelopeSegments(value)
        }
        let plain = must("success envelope") { () throws(CodecError) in try method.encodeSuccessEnvelope(value) }
        require(Array(segments.parts.joined()) == plain, "segments differ from the plain envelope")
    }

    /// Whether a value holds a custom value anywhere (the Standard codec cannot read those back
    /// without the extension that wrote them).
    static func containsCustom(_ value: StandardValue) -> Bool {
        switch value {
        case .custom: return true
        case .list(let elements): return elements.contains(where: containsCustom)
        case .map(let entries): return entries.contains { containsCustom($0.key) || containsCustom($0.value) }
        default: return false
        }
    }
}

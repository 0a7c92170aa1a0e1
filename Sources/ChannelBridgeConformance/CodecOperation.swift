public import ChannelBridgeCodec

/// One `encode`/`decode` request in the shapes `channelbridge codec` and the peer line protocol share:
/// codecs `standard`, `standard-method`, `json`, `json-method`; kind `message` for message codecs,
/// `call`/`success`/`error` to encode and `call`/`envelope` to decode for method codecs.
public struct CodecOperation: Sendable, Hashable {
    public enum Direction: String, Sendable, Hashable {
        case encode, decode
    }

    public enum CodecName: String, Sendable, Hashable, CaseIterable {
        case standard
        case standardMethod = "standard-method"
        case json
        case jsonMethod = "json-method"

        public var isMethodCodec: Bool { self == .standardMethod || self == .jsonMethod }
    }

    public var direction: Direction
    public var codec: CodecName
    public var kind: String

    /// Validates the kind for the codec and direction; the error text is a usage message.
    public init(_ direction: Direction, codec: CodecName, kind: String?) throws(CodecError) {
        let kind = kind ?? (codec.isMethodCodec ? "" : "message")
        let allowed: [String]
        switch (codec.isMethodCodec, direction) {
        case (false, _): allowed = ["message"]
        case (true, .encode): allowed = ["call", "success", "error"]
        case (true, .decode): allowed = ["call", "envelope"]
        }
        guard allowed.contains(kind) else {
            let shown = kind.isEmpty ? "no kind" : "kind '\(kind)'"
            throw CodecError(
                .invalidNotation,
                "\(shown) for \(direction.rawValue) with codec \(codec.rawValue); use one of: \(allowed.joined(separator: ", "))"
            )
        }
        self.direction = direction
        self.codec = codec
        self.kind = kind
    }

    /// Runs the request on this package's codecs: `input` is a JSON line to encode or a hex line
    /// to decode; the result is hex, or canonical TVN / the JSON shapes of `CodecJSONShapes`.
    public func perform(_ input: String) throws(CodecError) -> String {
        let json = codec == .json || codec == .jsonMethod
        let messageCodec: any MessageCodec<StandardValue> = json ? JSONMessageCodec() : StandardMessageCodec()
        let methodCodec: any MethodCodec = json ? JSONMethodCodec() : StandardMethodCodec()
        switch direction {
        case .encode:
            let document: JSONValue
            do {
                document = try JSONValue.parse(input, maxDepth: CodecJSONShapes.maxJSONDepth)
            } catch {
                throw CodecError(.invalidNotation, "not JSON: \(error.description)")
            }
            let bytes: [UInt8]
            switch kind {
            case "call": bytes = try methodCodec.encodeMethodCall(try CodecJSONShapes.methodCall(from: document))
            case "success": bytes = try methodCodec.encodeSuccessEnvelope(try CodecJSONShapes.success(from: document))
            case "error":
                let (error, includingStacktrace) = try CodecJSONShapes.error(from: document)
                bytes = try methodCodec.encodeErrorEnvelope(error, includingStacktrace: includingStacktrace)
            default: bytes = try messageCodec.encode(try TypedValueNotation.value(from: document))
            }
            return Hex.encode(bytes)
        case .decode:
            let bytes = try Hex.decode(input.trimmingWhitespace())
            switch kind {
            case "call": return CodecJSONShapes.json(for: try methodCodec.decodeMethodCall(bytes)).text
            case "envelope": return CodecJSONShapes.json(for: try methodCodec.decodeEnvelope(bytes)).text
            default: return TypedValueNotation.canonicalText(try messageCodec.decode(bytes))
            }
        }
    }
}

extension String {
    func trimmingWhitespace() -> Substring {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\r" || $0 == "\n" }
        guard let first = firstIndex(where: { !isSpace($0) }), let last = lastIndex(where: { !isSpace($0) }) else {
            return ""
        }
        return self[first...last]
    }
}

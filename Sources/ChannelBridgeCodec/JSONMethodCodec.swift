/// Flutter's `JSONMethodCodec`: a call is `{"method": name, "args": value}`, a success envelope is
/// `[result]`, an error envelope is `[code, message, details]` or, with a stacktrace,
/// `[code, message, details, stacktrace]`. Envelopes are told apart by their length.
public struct JSONMethodCodec: MethodCodec {
    public var messageCodec: JSONMessageCodec

    public init(_ messageCodec: JSONMessageCodec = JSONMessageCodec()) {
        self.messageCodec = messageCodec
    }

    private func text(_ json: JSONValue) -> [UInt8] {
        var out: [UInt8] = []
        JSONWriter.write(json, into: &out)
        return out
    }

    private func parse(_ bytes: [UInt8], _ what: String) throws(CodecError) -> JSONValue {
        guard !bytes.isEmpty else {
            throw CodecError(
                what == "method call" ? .invalidMethodCall : .invalidEnvelope, "\(what) is empty", offset: 0)
        }
        return try JSONValue.parseMessage(bytes, maxDepth: messageCodec.maxDepth)
    }

    public func encodeMethodCall(_ call: MethodCall) throws(CodecError) -> [UInt8] {
        text(
            .object([
                .init("method", .string(call.method)),
                .init("args", try JSONMessageCodec.json(for: call.arguments)),
            ]))
    }

    public func decodeMethodCall(_ bytes: [UInt8]) throws(CodecError) -> MethodCall {
        let json = try parse(bytes, "method call")
        guard case .object = json else {
            throw CodecError(.invalidMethodCall, "method call is not a JSON object", offset: 0)
        }
        guard case .object(let members) = json, case .string(let method)? = json["method"] else {
            throw CodecError(.invalidMethodCall, "method call has no string \"method\"", offset: 0)
        }
        for key in ["method", "args"] where members.filter({ $0.key == key }).count > 1 {
            throw CodecError(.invalidMethodCall, "method call has \"\(key)\" twice", offset: 0)
        }
        return MethodCall(method, arguments: try json["args"].map(JSONMessageCodec.value(from:)) ?? .null)
    }

    public func encodeSuccessEnvelope(_ result: StandardValue) throws(CodecError) -> [UInt8] {
        text(.array([try JSONMessageCodec.json(for: result)]))
    }

    public func encodeErrorEnvelope(_ error: MethodError, includingStacktrace: Bool) throws(CodecError) -> [UInt8] {
        var elements: [JSONValue] = [
            .string(error.code),
            error.message.map(JSONValue.string) ?? .null,
            try JSONMessageCodec.json(for: error.details),
        ]
        if includingStacktrace {
            elements.append(error.stacktrace.map(JSONValue.string) ?? .null)
        }
        return text(.array(elements))
    }

    public func decodeEnvelope(_ bytes: [UInt8]) throws(CodecError) -> MethodEnvelope {
        guard case .array(let elements) = try parse(bytes, "envelope") else {
            throw CodecError(.invalidEnvelope, "envelope is not a JSON array", offset: 0)
        }
        switch elements.count {
        case 1:
            return .success(try JSONMessageCodec.value(from: elements[0]))
        case 3, 4:
            guard case .string(let code) = elements[0] else {
                throw CodecError(.invalidEnvelope, "error code is not a string", offset: 0)
            }
            let message = try optionalString(elements[1], "error message")
            let stacktrace = elements.count == 4 ? try optionalString(elements[3], "error stacktrace") : nil
            return .error(
                MethodError(
                    code: code, message: message,
                    details: try JSONMessageCodec.value(from: elements[2]), stacktrace: stacktrace))
        default:
            throw CodecError(
                .invalidEnvelope,
                "envelope has \(elements.count) elements, expected 1 (success) or 3 or 4 (error)", offset: 0)
        }
    }

    private func optionalString(_ json: JSONValue, _ what: String) throws(CodecError) -> String? {
        switch json {
        case .null: return nil
        case .string(let text): return text
        default: throw CodecError(.invalidEnvelope, "\(what) is neither a string nor null", offset: 0)
        }
    }
}

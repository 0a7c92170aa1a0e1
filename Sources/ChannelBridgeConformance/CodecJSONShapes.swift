public import ChannelBridgeCodec

/// The JSON shapes that `channelbridge codec`, the peer line protocol and vector files use for method
/// calls and envelopes: call `{"method", "args"}`, success `{"result"}`, error
/// `{"code", "message", "details", "stacktrace"?}` (values in TVN).
public enum CodecJSONShapes {
    /// How deep a line holding one of these shapes may nest: a TVN value's own limit and one level
    /// for the object around it.
    public static let maxJSONDepth = TypedValueNotation.maxJSONDepth + 1

    public static func methodCall(from json: JSONValue) throws(CodecError) -> MethodCall {
        guard case .string(let method)? = json["method"] else {
            throw CodecError(.invalidNotation, "a method call needs a string \"method\"")
        }
        return MethodCall(method, arguments: try TypedValueNotation.value(from: json["args"] ?? .null))
    }

    public static func json(for call: MethodCall) -> JSONValue {
        .object([.init("method", .string(call.method)), .init("args", TypedValueNotation.json(for: call.arguments))])
    }

    public static func success(from json: JSONValue) throws(CodecError) -> StandardValue {
        guard let result = json["result"] else { throw CodecError(.invalidNotation, "a success needs \"result\"") }
        return try TypedValueNotation.value(from: result)
    }

    /// Returns the error and whether the stacktrace slot is present (`"stacktrace"` given, even null).
    public static func error(from json: JSONValue) throws(CodecError) -> (MethodError, includingStacktrace: Bool) {
        guard case .string(let code)? = json["code"] else {
            throw CodecError(.invalidNotation, "an error needs a string \"code\"")
        }
        func optionalString(_ key: String) throws(CodecError) -> String? {
            switch json[key] {
            case nil, .null?: return nil
            case .string(let s)?: return s
            default: throw CodecError(.invalidNotation, "\"\(key)\" must be a string or null")
            }
        }
        let error = MethodError(
            code: code, message: try optionalString("message"),
            details: try TypedValueNotation.value(from: json["details"] ?? .null),
            stacktrace: try optionalString("stacktrace"))
        return (error, json["stacktrace"] != nil)
    }

    public static func envelope(from json: JSONValue) throws(CodecError) -> MethodEnvelope {
        if json["result"] != nil { return .success(try success(from: json)) }
        return .error(try error(from: json).0)
    }

    public static func json(for envelope: MethodEnvelope) -> JSONValue {
        switch envelope {
        case .success(let value):
            return .object([.init("result", TypedValueNotation.json(for: value))])
        case .error(let error):
            var members: [JSONValue.Member] = [
                .init("code", .string(error.code)),
                .init("message", error.message.map(JSONValue.string) ?? .null),
                .init("details", TypedValueNotation.json(for: error.details)),
            ]
            if let stacktrace = error.stacktrace { members.append(.init("stacktrace", .string(stacktrace))) }
            return .object(members)
        }
    }

    /// An error to encode: the `"stacktrace"` key is present (possibly null) exactly when the
    /// envelope must carry the fourth value.
    public static func json(for error: MethodError, includingStacktrace: Bool) -> JSONValue {
        guard
            case .object(var members) = json(
                for: .error(
                    MethodError(
                        code: error.code, message: error.message,
                        details: error.details)))
        else { return .null }
        if includingStacktrace { members.append(.init("stacktrace", error.stacktrace.map(JSONValue.string) ?? .null)) }
        return .object(members)
    }
}

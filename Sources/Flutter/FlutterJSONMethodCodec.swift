public import ChannelBridgeCodec
public import Foundation

/// Method calls and envelopes as JSON (Flutter's `FlutterJSONMethodCodec`): a call is
/// `{"method": …, "args": …}`, a success `[result]`, an error `[code, message, details]`, with
/// `null` for what is `nil`. Written with `FlutterJSONMessageCodec`.
///
/// The call is a dictionary, so the order of `method` and `args` in the text is
/// `JSONSerialization`'s, as on iOS (which does not promise one either).
///
/// ```swift
/// let codec = FlutterJSONMethodCodec.sharedInstance()
/// codec.encodeSuccessEnvelope(1.5)   // [1.5]
/// ```
// @unchecked: no stored state; NSObject is what keeps the compiler from seeing that.
public final class FlutterJSONMethodCodec: NSObject, FlutterMethodCodec, CheckedMethodCodec, @unchecked Sendable {
    // @unchecked: stateless.
    private var json: FlutterJSONMessageCodec { FlutterJSONMessageCodec.sharedInstance() }

    public override init() {
        super.init()
    }

    public static func sharedInstance() -> FlutterJSONMethodCodec {
        SharedCodecs.instance(of: self) { FlutterJSONMethodCodec() }
    }

    public func encode(_ methodCall: FlutterMethodCall) -> Data {
        logged("JSON method call") { () throws(CodecError) in try checkedEncode(methodCall) }
    }

    public func encodeSuccessEnvelope(_ result: Any?) -> Data {
        logged("JSON success envelope") { () throws(CodecError) in try checkedEncodeSuccessEnvelope(result) }
    }

    public func encodeErrorEnvelope(_ error: FlutterError) -> Data {
        logged("JSON error envelope") { () throws(CodecError) in try checkedEncodeErrorEnvelope(error) }
    }

    public func decodeMethodCall(_ methodCall: Data) -> FlutterMethodCall {
        do {
            return try checkedDecodeMethodCall(methodCall)
        } catch {
            FlutterLog.error("Invalid JSON method call: \(error)")
            return FlutterMethodCall(methodName: "", arguments: nil)
        }
    }

    public func decodeEnvelope(_ envelope: Data) -> Any? {
        do {
            return try checkedDecodeEnvelope(envelope)
        } catch {
            FlutterLog.error("Invalid JSON envelope: \(error)")
            return nil
        }
    }

    public func checkedEncode(_ methodCall: FlutterMethodCall) throws(CodecError) -> Data {
        try json.checkedEncode(
            ["method": methodCall.method, "args": Self.wrapNil(methodCall.arguments)] as [String: Any])!
    }

    public func checkedEncodeSuccessEnvelope(_ result: Any?) throws(CodecError) -> Data {
        try json.checkedEncode([Self.wrapNil(result)])!
    }

    public func checkedEncodeErrorEnvelope(_ error: FlutterError) throws(CodecError) -> Data {
        try json.checkedEncode([error.code, Self.wrapNil(error.message), Self.wrapNil(error.details)])!
    }

    public func checkedDecodeMethodCall(_ methodCall: Data) throws(CodecError) -> FlutterMethodCall {
        guard let object = try json.checkedDecode(methodCall) as? [String: Any] else {
            throw CodecError(.invalidMethodCall, "a JSON method call is an object")
        }
        guard let method = object["method"] as? String else {
            throw CodecError(.invalidMethodCall, "a JSON method call needs a string \"method\"")
        }
        return FlutterMethodCall(methodName: method, arguments: Self.unwrapNil(object["args"]))
    }

    public func checkedDecodeEnvelope(_ envelope: Data) throws(CodecError) -> Any? {
        guard let array = try json.checkedDecode(envelope) as? [Any] else {
            throw CodecError(.invalidEnvelope, "a JSON envelope is an array")
        }
        switch array.count {
        case 1:
            return Self.unwrapNil(array[0])
        case 3:
            guard let code = array[0] as? String else {
                throw CodecError(.invalidEnvelope, "error code is not a string")
            }
            let message = Self.unwrapNil(array[1])
            guard message == nil || message is String else {
                throw CodecError(.invalidEnvelope, "error message is neither a string nor null")
            }
            return FlutterError(code: code, message: message as? String, details: Self.unwrapNil(array[2]))
        default:
            throw CodecError(
                .invalidEnvelope, "a JSON envelope has 1 (success) or 3 (error) elements, got \(array.count)")
        }
    }

    private func logged(_ what: String, _ body: () throws(CodecError) -> Data) -> Data {
        do {
            return try body()
        } catch {
            FlutterLog.error("Encoding \(what) failed: \(error)")
            return Data()
        }
    }

    private static func wrapNil(_ value: Any?) -> Any {
        value.flatMap(FlutterValues.unwrap) ?? NSNull()
    }

    private static func unwrapNil(_ value: Any?) -> Any? {
        guard let value = value.flatMap(FlutterValues.unwrap), !(value is NSNull) else { return nil }
        return value
    }
}

public import ChannelBridgeCodec
public import Foundation

/// Messages as UTF-8 JSON text (Flutter's `FlutterJSONMessageCodec`), written and read with
/// Foundation's `JSONSerialization` as the iOS embedder does, so the text is the same: compact,
/// `/` escaped as `\/`, integral floats without a fraction (`1.0` is `1`). A top-level scalar is
/// written by writing `[value]` and dropping the brackets, and read by adding them.
///
/// Values come back as `JSONSerialization` gives them: `NSNumber` (booleans too), `String`,
/// `[Any]`, `[String: Any]`, and `NSNull` for null inside containers.
///
/// ```swift
/// let codec = FlutterJSONMessageCodec.sharedInstance()
/// codec.encode(["a": 1])   // {"a":1}
/// ```
// @unchecked: no stored state; NSObject is what keeps the compiler from seeing that.
public final class FlutterJSONMessageCodec: NSObject, FlutterMessageCodec, CheckedMessageCodec, @unchecked Sendable {
    // @unchecked: stateless.
    public override init() {
        super.init()
    }

    public static func sharedInstance() -> FlutterJSONMessageCodec {
        SharedCodecs.instance(of: self) { FlutterJSONMessageCodec() }
    }

    /// `nil` for `nil`; a value JSON cannot hold is logged and gives `nil`.
    public func encode(_ message: Any?) -> Data? {
        do {
            return try checkedEncode(message)
        } catch {
            FlutterLog.error("Invalid JSON message, encoding failed: \(error)")
            return nil
        }
    }

    /// `nil` for `nil` or zero bytes; text that is not JSON is logged and gives `nil`.
    public func decode(_ message: Data?) -> Any? {
        do {
            return try checkedDecode(message)
        } catch {
            FlutterLog.error("Invalid JSON message, decoding failed: \(error)")
            return nil
        }
    }

    public func checkedEncode(_ message: Any?) throws(CodecError) -> Data? {
        guard let message = message.flatMap(FlutterValues.unwrap) else { return nil }
        let object = Self.foundationObject(message)
        let isContainer = object is [Any] || object is [String: Any]
        let wrapped: Any = isContainer ? object : [object]
        guard JSONSerialization.isValidJSONObject(wrapped) else {
            throw CodecError(
                .unencodable,
                "\(Swift.type(of: message)) is not a JSON value (maps need string keys; "
                    + "numbers must be finite)")
        }
        let data: Data
        do {
            data = try JSONSerialization.data(withJSONObject: wrapped, options: [])
        } catch {
            throw CodecError(.unencodable, "JSONSerialization refused the value: \(error)")
        }
        return isContainer ? data : data.dropFirst().dropLast()
    }

    public func checkedDecode(_ message: Data?) throws(CodecError) -> Any? {
        guard let message, let first = message.first else { return nil }
        let isScalar = first != UInt8(ascii: "{") && first != UInt8(ascii: "[")
        var text = message
        if isScalar {
            text = Data([UInt8(ascii: "[")]) + message + Data([UInt8(ascii: "]")])
        }
        let object: Any
        do {
            object = try JSONSerialization.jsonObject(with: text, options: [])
        } catch {
            throw CodecError(.invalidJSON, "not valid JSON: \(error)")
        }
        if isScalar {
            guard let array = object as? [Any], array.count == 1 else {
                throw CodecError(.invalidJSON, "not one JSON value")
            }
            return array[0] is NSNull ? nil : array[0]
        }
        return object
    }

    /// The value with Swift's `nil`s turned into NSNull and its numbers into NSNumbers, which is
    /// what JSONSerialization takes.
    static func foundationObject(_ value: Any?) -> Any {
        guard let value = value.flatMap(FlutterValues.unwrap) else { return NSNull() }
        switch FlutterValues.kind(of: value) {
        case .null: return NSNull()
        case .bool(let flag): return NSNumber(value: flag)
        case .int32(let number): return NSNumber(value: number)
        case .int64(let number): return NSNumber(value: number)
        case .float64(let number): return NSNumber(value: number)
        case .string(let string): return string
        case .list(let elements): return elements.map(foundationObject)
        case .map(let entries):
            var object: [String: Any] = [:]
            for (key, entry) in entries {
                // A key that is not a string makes the value invalid JSON, as on iOS.
                guard let key = key.base as? String else { return [AnyHashable(key): entry] as [AnyHashable: Any] }
                object[key] = foundationObject(entry)
            }
            return object
        case .typedData, .bytes, .unsupportedNumber, .unknown:
            return value
        }
    }
}

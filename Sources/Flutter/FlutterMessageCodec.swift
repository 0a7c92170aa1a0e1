import ChannelBridgeCodec
import ChannelBridgePlatform
public import Foundation

/// Encodes messages for a `FlutterBasicMessageChannel` (Flutter's `FlutterMessageCodec`).
public protocol FlutterMessageCodec: AnyObject {
    /// A shared instance of this codec.
    static func sharedInstance() -> Self
    /// The message's bytes; `nil` for a `nil` message ("no message").
    func encode(_ message: Any?) -> Data?
    /// The message the bytes hold; `nil` for `nil`.
    func decode(_ message: Data?) -> Any?
}

/// Encodes method calls and result envelopes for a `FlutterMethodChannel` or
/// `FlutterEventChannel` (Flutter's `FlutterMethodCodec`).
///
/// Swift names as on iOS: `encodeMethodCall:` is `encode(_:)`.
public protocol FlutterMethodCodec: AnyObject {
    static func sharedInstance() -> Self
    func encode(_ methodCall: FlutterMethodCall) -> Data
    func decodeMethodCall(_ methodCall: Data) -> FlutterMethodCall
    func encodeSuccessEnvelope(_ result: Any?) -> Data
    func encodeErrorEnvelope(_ error: FlutterError) -> Data
    /// The result, or a `FlutterError` for an error envelope.
    func decodeEnvelope(_ envelope: Data) -> Any?
}

extension FlutterMethodCodec {
    /// `encode(_:)` under its Objective-C name.
    public func encodeMethodCall(_ methodCall: FlutterMethodCall) -> Data {
        encode(methodCall)
    }
}

/// A codec of this module that can say what is wrong, which Flutter's API has no way to: every
/// channel here uses it to answer malformed input with an error instead of passing on garbage.
protocol CheckedMessageCodec: AnyObject {
    func checkedEncode(_ message: Any?) throws(CodecError) -> Data?
    func checkedDecode(_ message: Data?) throws(CodecError) -> Any?
}

/// The method-codec counterpart of `CheckedMessageCodec`.
protocol CheckedMethodCodec: AnyObject {
    func checkedEncode(_ methodCall: FlutterMethodCall) throws(CodecError) -> Data
    func checkedDecodeMethodCall(_ methodCall: Data) throws(CodecError) -> FlutterMethodCall
    func checkedEncodeSuccessEnvelope(_ result: Any?) throws(CodecError) -> Data
    func checkedEncodeErrorEnvelope(_ error: FlutterError) throws(CodecError) -> Data
    func checkedDecodeEnvelope(_ envelope: Data) throws(CodecError) -> Any?
}

/// One shared instance per codec class, made on first use.
enum SharedCodecs {
    private static let instances = LockedValue<[ObjectIdentifier: AnyObject]>([:])

    /// `make` runs outside the lock: it may be a subclass's initializer, which can ask for another
    /// shared codec. Two first callers may both make one; the first filed is the shared one.
    static func instance<T: AnyObject & Sendable>(of type: T.Type, make: () -> T) -> T {
        let key = ObjectIdentifier(type)
        if let existing = instances.withLock({ $0[key] as? T }) { return existing }
        let created = make()
        return instances.withLock { instances in
            if let existing = instances[key] as? T { return existing }
            instances[key] = created
            return created
        }
    }
}

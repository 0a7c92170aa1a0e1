public import ChannelBridgeCodec
public import Foundation

/// Messages as UTF-8 text: `String` in, `String` out (Flutter's `FlutterStringCodec`).
///
/// ```swift
/// let channel = FlutterBasicMessageChannel(name: "example/log", binaryMessenger: engine,
///                                          codec: FlutterStringCodec.sharedInstance())
/// channel.sendMessage("hello")
/// ```
// @unchecked: no stored state; NSObject is what keeps the compiler from seeing that.
public final class FlutterStringCodec: NSObject, FlutterMessageCodec, CheckedMessageCodec, @unchecked Sendable {
    // @unchecked: stateless.
    public override init() {
        super.init()
    }

    public static func sharedInstance() -> FlutterStringCodec {
        SharedCodecs.instance(of: self) { FlutterStringCodec() }
    }

    /// The UTF-8 bytes; anything but a `String` is logged and gives `nil`.
    public func encode(_ message: Any?) -> Data? {
        do {
            return try checkedEncode(message)
        } catch {
            FlutterLog.error("\(error)")
            return nil
        }
    }

    /// The text; bytes that are not UTF-8 give `nil`, as on iOS.
    public func decode(_ message: Data?) -> Any? {
        try? checkedDecode(message)
    }

    public func checkedEncode(_ message: Any?) throws(CodecError) -> Data? {
        guard let message = message.flatMap(FlutterValues.unwrap) else { return nil }
        guard let string = message as? String else {
            throw CodecError(.unencodable, "FlutterStringCodec encodes strings only, got \(Swift.type(of: message))")
        }
        return Data(string.utf8)
    }

    public func checkedDecode(_ message: Data?) throws(CodecError) -> Any? {
        guard let message else { return nil }
        guard let string = String(validating: message, as: UTF8.self) else {
            throw CodecError(.invalidUTF8, "the message is not valid UTF-8")
        }
        return string
    }
}

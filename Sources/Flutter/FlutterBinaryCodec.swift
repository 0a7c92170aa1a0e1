public import ChannelBridgeCodec
public import Foundation

/// Messages as raw bytes: `Data` in, `Data` out (Flutter's `FlutterBinaryCodec`).
///
/// ```swift
/// let channel = FlutterBasicMessageChannel(name: "example/raw", binaryMessenger: engine,
///                                          codec: FlutterBinaryCodec.sharedInstance())
/// ```
// @unchecked: no stored state; NSObject is what keeps the compiler from seeing that.
public final class FlutterBinaryCodec: NSObject, FlutterMessageCodec, CheckedMessageCodec, @unchecked Sendable {
    // @unchecked: stateless.
    public override init() {
        super.init()
    }

    public static func sharedInstance() -> FlutterBinaryCodec {
        SharedCodecs.instance(of: self) { FlutterBinaryCodec() }
    }

    /// The message itself; anything but `Data` is logged and gives `nil`.
    public func encode(_ message: Any?) -> Data? {
        do {
            return try checkedEncode(message)
        } catch {
            FlutterLog.error("\(error)")
            return nil
        }
    }

    public func decode(_ message: Data?) -> Any? {
        message
    }

    public func checkedEncode(_ message: Any?) throws(CodecError) -> Data? {
        guard let message = message.flatMap(FlutterValues.unwrap) else { return nil }
        guard let data = message as? Data else {
            throw CodecError(.unencodable, "FlutterBinaryCodec encodes Data only, got \(Swift.type(of: message))")
        }
        return data
    }

    public func checkedDecode(_ message: Data?) throws(CodecError) -> Any? {
        message
    }
}

public import Foundation

/// An error answer to a method call, or an error event on an event channel (Flutter's
/// `FlutterError`): a code for programs, a message for people, and details of any codec value.
///
/// As on iOS it is an `NSObject`, sent through a `FlutterResult` or an event sink. It is also an
/// `Error`, as an Objective-C class is to Swift on iOS, so that plugin code that throws it
/// (`throw FlutterError(…) as! Error`, as `shared_preferences_foundation` does) works here too;
/// code that adds `extension FlutterError: Error {}` itself, as many plugins do, still compiles
/// (with a warning that the conformance is already stated).
///
/// ```swift
/// result(FlutterError(code: "WRONG_TYPE", message: "ShareKey holds an int", details: nil))
/// ```
// @unchecked: immutable (`let`s); `details` is whatever the codec can encode, handed over once, as Flutter passes it.
open class FlutterError: NSObject, Error, @unchecked Sendable {
    // @unchecked: every stored property is a `let`; `details` is whatever value the caller gave,
    // as on iOS, and is only read.
    public let code: String
    public let message: String?
    public let details: Any?

    public init(code: String, message: String?, details: Any?) {
        self.code = code
        self.message = message
        self.details = details
        super.init()
    }

    open override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? FlutterError else { return false }
        if other === self { return true }
        return code == other.code && message == other.message
            && FlutterValues.isEqual(details, other.details)
    }

    open override var hash: Int {
        code.hashValue ^ (message?.hashValue ?? 0)
    }

    open override var description: String {
        "FlutterError(code: \(code), message: \(message ?? "nil"), details: \(details.map { "\($0)" } ?? "nil"))"
    }
}

/// The answer to a method call that names a method the handler does not know: the caller gets a
/// null reply, which Dart reports as `MissingPluginException` (Flutter's
/// `FlutterMethodNotImplemented`). Compared by identity.
///
/// ```swift
/// default: result(FlutterMethodNotImplemented)
/// ```
nonisolated(unsafe)  // an immutable object used only for its identity
    public let FlutterMethodNotImplemented: NSObject = FlutterSentinel(name: "FlutterMethodNotImplemented")

/// Sent through a `FlutterEventSink` to end the stream (Flutter's `FlutterEndOfEventStream`).
/// Compared by identity.
nonisolated(unsafe)  // an immutable object used only for its identity
    public let FlutterEndOfEventStream: NSObject = FlutterSentinel(name: "FlutterEndOfEventStream")

/// A constant object compared by identity.
// @unchecked: immutable: one `let` String; compared by identity only.
final class FlutterSentinel: NSObject, @unchecked Sendable {
    // @unchecked: immutable after init.
    let name: String

    init(name: String) {
        self.name = name
        super.init()
    }

    override var description: String { name }
}

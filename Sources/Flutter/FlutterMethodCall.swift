public import Foundation

/// A method call: the method's name and its arguments (Flutter's `FlutterMethodCall`).
///
/// Arguments are codec values as this module decodes them: `nil`, `NSNumber` for booleans and
/// numbers, `String`, `FlutterStandardTypedData`, `[Any?]`, `[AnyHashable: Any?]`, or a custom
/// type a reader subclass returns.
///
/// ```swift
/// let call = FlutterMethodCall(methodName: "getString", arguments: ["key": "ShareKey"])
/// let key = (call.arguments as? [String: Any])?["key"] as? String
/// ```
// @unchecked: immutable (`let`s); `arguments` is decoded codec output, handed to one handler.
open class FlutterMethodCall: NSObject, @unchecked Sendable {
    // @unchecked: immutable after init; the arguments are only read.
    public let method: String
    public let arguments: Any?

    public init(methodName method: String, arguments: Any?) {
        self.method = method
        self.arguments = arguments
        super.init()
    }

    open override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? FlutterMethodCall else { return false }
        if other === self { return true }
        return method == other.method && FlutterValues.isEqual(arguments, other.arguments)
    }

    open override var hash: Int {
        method.hashValue
    }

    open override var description: String {
        "FlutterMethodCall(\(method), arguments: \(arguments.map { "\($0)" } ?? "nil"))"
    }
}

/// An error a method handler answers with: Flutter's `FlutterError` / `PlatformException`.
///
/// Throw it from a handler to send an error envelope; `invokeMethod` throws it when the other side
/// answered with one.
///
/// ```swift
/// throw MethodError(code: "WRONG_TYPE", message: "ShareKey holds an int")
/// ```
public struct MethodError: Error, Sendable, Hashable, CustomStringConvertible {
    public var code: String
    public var message: String?
    public var details: StandardValue
    /// Written as the envelope's optional fourth value when not `nil`.
    public var stacktrace: String?

    public init(code: String, message: String? = nil, details: StandardValue = .null, stacktrace: String? = nil) {
        self.code = code
        self.message = message
        self.details = details
        self.stacktrace = stacktrace
    }

    public var description: String {
        var text = "MethodError(\(code)"
        if let message { text += ": \(message)" }
        if details != .null { text += ", details: \(details)" }
        return text + ")"
    }
}

/// A decoded reply envelope.
public enum MethodEnvelope: Sendable, Hashable {
    case success(StandardValue)
    case error(MethodError)

    /// The success value, or the error thrown.
    public func get() throws(MethodError) -> StandardValue {
        switch self {
        case .success(let value): return value
        case .error(let error): throw error
        }
    }
}

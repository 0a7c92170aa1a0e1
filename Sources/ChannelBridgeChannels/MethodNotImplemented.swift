/// Thrown by a method-call handler to answer "not implemented": the caller gets a null reply, which
/// its `invokeMethod` reports as `ChannelError.notImplemented` (Flutter's `notImplemented()`).
///
/// ```swift
/// channel.setMethodCallHandler { call in
///     switch call.method {
///     case "ping": return .string("pong")
///     default: throw MethodNotImplemented()
///     }
/// }
/// ```
public struct MethodNotImplemented: Error, Sendable, Hashable, CustomStringConvertible {
    public init() {}

    public var description: String { "method not implemented" }
}

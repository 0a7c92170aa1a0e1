/// A method invocation: the method's name and its arguments (`.null` when there are none).
public struct MethodCall: Sendable, Hashable {
    public var method: String
    public var arguments: StandardValue

    public init(_ method: String, arguments: StandardValue = .null) {
        self.method = method
        self.arguments = arguments
    }
}

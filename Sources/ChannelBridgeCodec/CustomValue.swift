/// A value whose type a codec extension adds to the Standard format (tags 128...255).
///
/// Conform your own type and carry it as `StandardValue.custom(CustomValue(point))`; a
/// `StandardCodecExtension` writes and reads its bytes.
///
/// ```swift
/// struct Point: CustomStandardValue { var x, y: Int32; var customTag: UInt8 { 128 } }
/// let value = StandardValue.custom(CustomValue(Point(x: 9, y: 16)))
/// ```
public protocol CustomStandardValue: Sendable, Hashable {
    /// The type byte this value is written with; 128 or above.
    var customTag: UInt8 { get }
}

/// A custom value's payload as raw bytes: what typed value notation (`{"custom": 128, "hex": …}`)
/// describes. The Standard writer writes it as its tag followed by the bytes, with no extension.
public struct RawCustomValue: CustomStandardValue {
    public var customTag: UInt8
    public var payload: [UInt8]

    public init(tag: UInt8, payload: [UInt8]) {
        self.customTag = tag
        self.payload = payload
    }
}

/// A type-erased `CustomStandardValue`, comparable and hashable across concrete types.
public struct CustomValue: Sendable, Hashable, CustomStringConvertible {
    public let base: any CustomStandardValue

    public init(_ base: some CustomStandardValue) {
        self.base = base
    }

    public var tag: UInt8 { base.customTag }

    /// The wrapped value as `T`, when it is one.
    public func `as`<T: CustomStandardValue>(_ type: T.Type) -> T? { base as? T }

    public static func == (lhs: CustomValue, rhs: CustomValue) -> Bool {
        AnyHashable(lhs.base) == AnyHashable(rhs.base)
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(AnyHashable(base))
    }

    public var description: String { "custom(\(tag): \(base))" }
}

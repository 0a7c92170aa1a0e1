public import struct FoundationEssentials.Data

/// A Swift value with a natural Standard form: `Int` picks int32 or int64 as Dart does,
/// `[String: X]` becomes a map (keys sorted, so encoding is deterministic), `Data` and `[UInt8]`
/// become a Uint8List.
///
/// ```swift
/// let args = StandardValue(["key": "ShareKey", "value": "hello"])
/// ```
public protocol StandardValueConvertible {
    var standardValue: StandardValue { get }
}

extension StandardValue: StandardValueConvertible {
    public var standardValue: StandardValue { self }

    public init(_ value: some StandardValueConvertible) {
        self = value.standardValue
    }
}

extension Bool: StandardValueConvertible {
    public var standardValue: StandardValue { .bool(self) }
}

extension Int: StandardValueConvertible {
    public var standardValue: StandardValue { .int(self) }
}

extension Int32: StandardValueConvertible {
    public var standardValue: StandardValue { .int32(self) }
}

extension Int64: StandardValueConvertible {
    public var standardValue: StandardValue { .int64(self) }
}

extension Double: StandardValueConvertible {
    public var standardValue: StandardValue { .float64(self) }
}

extension String: StandardValueConvertible {
    public var standardValue: StandardValue { .string(self) }
}

extension Data: StandardValueConvertible {
    public var standardValue: StandardValue { .uint8List([UInt8](self)) }
}

extension Optional: StandardValueConvertible where Wrapped: StandardValueConvertible {
    public var standardValue: StandardValue { self?.standardValue ?? .null }
}

extension Array: StandardValueConvertible where Element: StandardValueConvertible {
    /// `[UInt8]` becomes a Uint8List; any other array a list.
    public var standardValue: StandardValue {
        if let bytes = self as? [UInt8] { return .uint8List(bytes) }
        return .list(map(\.standardValue))
    }
}

extension UInt8: StandardValueConvertible {
    public var standardValue: StandardValue { .int32(Int32(self)) }
}

extension Dictionary: StandardValueConvertible where Key == String, Value: StandardValueConvertible {
    public var standardValue: StandardValue {
        .map(sorted { $0.key < $1.key }.map { StandardValue.MapEntry(.string($0.key), $0.value.standardValue) })
    }
}

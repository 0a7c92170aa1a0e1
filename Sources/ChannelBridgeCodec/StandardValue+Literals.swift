// Literal conformances so call sites read like Dart: `["key": "ShareKey", "count": 3]`.

extension StandardValue: ExpressibleByNilLiteral {
    public init(nilLiteral: ()) { self = .null }
}

extension StandardValue: ExpressibleByBooleanLiteral {
    public init(booleanLiteral value: Bool) { self = .bool(value) }
}

extension StandardValue: ExpressibleByIntegerLiteral {
    /// int32 when it fits, else int64, as Dart picks.
    public init(integerLiteral value: Int) { self = .int(value) }
}

extension StandardValue: ExpressibleByFloatLiteral {
    public init(floatLiteral value: Double) { self = .float64(value) }
}

extension StandardValue: ExpressibleByStringLiteral {
    public init(stringLiteral value: String) { self = .string(value) }
}

extension StandardValue: ExpressibleByArrayLiteral {
    public init(arrayLiteral elements: StandardValue...) { self = .list(elements) }
}

extension StandardValue: ExpressibleByDictionaryLiteral {
    /// Keeps the pairs in the order written, duplicates included.
    public init(dictionaryLiteral elements: (StandardValue, StandardValue)...) {
        self = .map(elements.map { MapEntry($0.0, $0.1) })
    }
}

extension StandardValue: CustomStringConvertible {
    /// The canonical typed value notation of the value.
    public var description: String { TypedValueNotation.canonicalText(self) }
}

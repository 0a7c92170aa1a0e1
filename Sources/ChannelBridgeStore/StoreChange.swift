public import ChannelBridgeCodec

/// One key written in a preference store: its value after the write, or `nil` when it was removed.
///
/// A set produces a change even when the value is the one already stored; `removeAll` produces one
/// change per key it removed. Keys compare by code units, as the store tells keys apart.
public struct StoreChange: Sendable, Hashable, CustomStringConvertible {
    public var key: String
    /// The key's value when the change was observed; `nil` when the key is absent.
    public var value: StandardValue?

    public init(key: String, value: StandardValue?) {
        self.key = key
        self.value = value
    }

    public var description: String {
        "\(key) = \(value.map { TypedValueNotation.canonicalText($0) } ?? "null")"
    }

    public static func == (lhs: StoreChange, rhs: StoreChange) -> Bool {
        CodeUnitString.equal(lhs.key, rhs.key) && lhs.value == rhs.value
    }

    public func hash(into hasher: inout Hasher) {
        CodeUnitString.hash(key, into: &hasher)
        hasher.combine(value)
    }
}

/// One stored key and its value, as `allValues()` lists them (in the order keys were first stored).
public struct PreferenceEntry: Sendable, Hashable {
    public var key: String
    public var value: StandardValue

    public init(key: String, value: StandardValue) {
        self.key = key
        self.value = value
    }

    public static func == (lhs: PreferenceEntry, rhs: PreferenceEntry) -> Bool {
        CodeUnitString.equal(lhs.key, rhs.key) && lhs.value == rhs.value
    }

    public func hash(into hasher: inout Hasher) {
        CodeUnitString.hash(key, into: &hasher)
        hasher.combine(value)
    }
}

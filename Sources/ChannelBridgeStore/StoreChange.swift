public import ChannelBridgeCodec

/// One key written in a preference store: its value after the write, or `nil` when it was removed.
///
/// A set produces a change even when the value is the one already stored; `removeAll` produces one
/// change per key it removed.
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
}

/// One stored key and its value, as `allValues()` lists them (in the order keys were first stored).
public struct PreferenceEntry: Sendable, Hashable {
    public var key: String
    public var value: StandardValue

    public init(key: String, value: StandardValue) {
        self.key = key
        self.value = value
    }
}

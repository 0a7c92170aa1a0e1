import ChannelBridgeCodec

/// Refuses values the store could write but not read back: the file would become unreadable for
/// every process sharing it.
enum ValueCheck {
    /// The JSON reader's nesting limit (`JSONValue.parse`'s default of 1,000) less the two levels of
    /// the document around each value, with room to spare.
    static let maximumDepth = 990

    static func validate(_ value: StandardValue, forKey key: String) throws(StoreError) {
        _ = try encoded(value, forKey: key)
    }

    /// The value's canonical TVN text, as the store writes it, once it is known to read back.
    static func encoded(_ value: StandardValue, forKey key: String) throws(StoreError) -> [UInt8] {
        let json = TypedValueNotation.json(for: value)
        let depth = depth(of: json)
        if depth > maximumDepth {
            throw StoreError(.invalidValue,
                             "the value for key '\(key)' nests \(depth) levels deep; the store keeps at most \(maximumDepth)")
        }
        // A custom value of a registered type has no typed-value-notation form without its codec
        // extension (only raw custom values do).
        do {
            _ = try TypedValueNotation.value(from: json)
        } catch {
            throw StoreError(.invalidValue,
                             "the value for key '\(key)' has no typed value notation the store can read back: \(error)")
        }
        return Array(json.text.utf8)
    }

    /// One key's read-modify-write inside a group commit: `transform` of the current value, checked
    /// and stored. Returns the value now stored, or the transform's (or the check's) error, in
    /// which case nothing is written.
    static func update(
        _ edit: inout DocumentEdit, key: String, _ transform: (StandardValue?) throws -> StandardValue?
    ) -> Result<StandardValue?, any Error> {
        do {
            let old = try edit.value(forKey: key)
            guard let new = try transform(old) else {
                edit.set(key, text: nil)
                return .success(nil)
            }
            edit.set(key, text: try encoded(new, forKey: key))
            return .success(new)
        } catch {
            return .failure(error)
        }
    }

    private static func depth(of json: JSONValue) -> Int {
        switch json {
        case .array(let elements): return 1 + (elements.map(depth(of:)).max() ?? 0)
        case .object(let members): return 1 + (members.map { depth(of: $0.value) }.max() ?? 0)
        default: return 0
        }
    }

    /// One key's read-modify-write, shared by every store: applies `transform` to the current
    /// value, validates the result and stores it. Returns the keys written (none when the
    /// transform failed or changed nothing) and the new value or the transform's error.
    static func update(
        _ values: inout OrderedValues, key: String, _ transform: (StandardValue?) throws -> StandardValue?
    ) -> (written: [String], result: Result<StandardValue?, any Error>) {
        let old = values[key]
        let new: StandardValue?
        do {
            new = try transform(old)
            if let new { try validate(new, forKey: key) }
        } catch {
            return ([], .failure(error))
        }
        if old == nil && new == nil { return ([], .success(nil)) }
        values[key] = new
        return ([key], .success(new))
    }
}

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
    ///
    /// Written straight from the value (`TVNWriter`), and checked without building anything of
    /// the value's size: a value appended to a list costs the store its text, not copies of it.
    static func encoded(_ value: StandardValue, forKey key: String) throws(StoreError) -> [UInt8] {
        let depth = jsonDepth(of: value)
        if depth > maximumDepth {
            throw StoreError(
                .invalidValue,
                "the value for key '\(key)' nests \(depth) levels deep; the store keeps at most \(maximumDepth)")
        }
        // Every value's text reads back but a custom value's of a registered type, which has no
        // typed-value-notation form without its codec extension (only raw custom values do).
        if containsCustom(value) {
            do {
                _ = try TypedValueNotation.value(from: TypedValueNotation.json(for: value))
            } catch {
                throw StoreError(
                    .invalidValue,
                    "the value for key '\(key)' has no typed value notation the store can read back: \(error)")
            }
        }
        return TVNWriter.canonicalUTF8(value)
    }

    /// How deep the JSON of the value's canonical TVN text nests: a list is an array, a map an
    /// object around an array of pair arrays, a typed list an object around an array, any other
    /// tagged value an object.
    static func jsonDepth(of value: StandardValue) -> Int {
        switch value {
        case .list(let elements):
            return 1 + elements.reduce(0) { max($0, jsonDepth(of: $1)) }
        case .map(let entries):
            return 3 + entries.reduce(0) { max($0, jsonDepth(of: $1.key), jsonDepth(of: $1.value)) }
        case .int32List, .int64List, .float32List, .float64List:
            return 2
        case .int32, .int64, .float64, .uint8List, .custom:
            return 1
        case .null, .bool, .string:
            return 0
        }
    }

    private static func containsCustom(_ value: StandardValue) -> Bool {
        switch value {
        case .custom: return true
        case .list(let elements): return elements.contains(where: containsCustom)
        case .map(let entries): return entries.contains { containsCustom($0.key) || containsCustom($0.value) }
        default: return false
        }
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

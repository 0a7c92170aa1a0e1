package import ChannelBridgeCodec

/// A value as a transcript states it (Protocol/transcript.md §4): exact TVN, or matchers standing
/// for what may vary, at any depth of lists and maps.
package indirect enum ValuePattern: Sendable, Hashable {
    /// A value with no matcher in it, compared exactly (TVN vector equality).
    case exact(StandardValue)
    /// A list holding matchers: the same count, element by element.
    case list([ValuePattern], written: String)
    /// A map holding matchers: the same count, pair by pair in order.
    case map([Pair], written: String)
    /// `$anyOrder`: the same pairs, in any order.
    case anyOrder([Pair], example: StandardValue?, written: String)
    /// `$any`: any value of the type.
    case any(TypeName, example: StandardValue?, written: String)
    /// `$regex`: a string whose whole text matches.
    case regex(String, example: StandardValue?, written: String)
    /// `$range`: a number within the bounds (inclusive, compared as float64).
    case range(min: Double?, max: Double?, type: TypeName?, example: StandardValue?, written: String)

    /// One pair of a map pattern.
    package struct Pair: Sendable, Hashable {
        package var key: ValuePattern
        package var value: ValuePattern

        package init(_ key: ValuePattern, _ value: ValuePattern) {
            self.key = key
            self.value = value
        }
    }

    /// The type names `$any` and `$type` take: TVN's form names, `int` and `value`.
    package enum TypeName: String, Sendable, Hashable, CaseIterable {
        case null, bool, int32, int64, float64, string, uint8list, int32list, int64list, float32list, float64list
        case list, map, custom, int, value

        /// Whether `value` is of this type.
        package func admits(_ value: StandardValue) -> Bool {
            switch (self, value) {
            case (.value, _), (.null, .null), (.bool, .bool), (.int32, .int32), (.int64, .int64), (.float64, .float64),
                (.string, .string), (.uint8list, .uint8List), (.int32list, .int32List), (.int64list, .int64List),
                (.float32list, .float32List), (.float64list, .float64List), (.list, .list), (.map, .map),
                (.custom, .custom),
                (.int, .int32), (.int, .int64):
                return true
            default:
                return false
            }
        }
    }

    /// Whether this holds no matcher.
    package var isExact: Bool {
        if case .exact = self { return true }
        return false
    }

    /// The concrete value a side answering from the transcript sends: the exact value, with each
    /// matcher replaced by its `example`; `nil` when a matcher has none.
    package var example: StandardValue? {
        switch self {
        case .exact(let value):
            return value
        case .list(let elements, _):
            var values: [StandardValue] = []
            values.reserveCapacity(elements.count)
            for element in elements {
                guard let value = element.example else { return nil }
                values.append(value)
            }
            return .list(values)
        case .map(let pairs, _):
            var entries: [StandardValue.MapEntry] = []
            entries.reserveCapacity(pairs.count)
            for pair in pairs {
                guard let key = pair.key.example, let value = pair.value.example else { return nil }
                entries.append(StandardValue.MapEntry(key, value))
            }
            return .map(entries)
        case .anyOrder(_, let example, _), .any(_, let example, _), .regex(_, let example, _),
            .range(_, _, _, let example, _):
            return example
        }
    }

    /// The pattern as the transcript writes it: canonical TVN for an exact value, the matcher's
    /// JSON otherwise.
    package var text: String {
        switch self {
        case .exact(let value): return TypedValueNotation.canonicalText(value)
        case .list(_, let written), .map(_, let written), .anyOrder(_, _, let written), .any(_, _, let written),
            .regex(_, _, let written), .range(_, _, _, _, let written):
            return written
        }
    }
}

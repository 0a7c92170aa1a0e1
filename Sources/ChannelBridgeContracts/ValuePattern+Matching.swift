package import ChannelBridgeCodec

extension ValuePattern {
    /// Whether `value` is one this pattern admits.
    package func matches(_ value: StandardValue) -> Bool {
        difference(from: value, at: "") == nil
    }

    /// The first difference between `value` and this pattern, depth first in order, or `nil` when
    /// the pattern admits the value (Protocol/transcript.md §4). `path` names the value's place.
    package func difference(from value: StandardValue, at path: String) -> ValueDifference? {
        switch self {
        case .exact(let expected):
            return Self.exactDifference(expected: expected, actual: value, at: path)
        case .list(let elements, let written):
            guard case .list(let values) = value, values.count == elements.count else {
                return ValueDifference(path: path, expected: written, actual: ValueDifference.shown(value))
            }
            for (index, element) in elements.enumerated() {
                if let found = element.difference(from: values[index], at: "\(path)[\(index)]") { return found }
            }
            return nil
        case .map(let pairs, let written):
            guard case .map(let entries) = value, entries.count == pairs.count else {
                return ValueDifference(path: path, expected: written, actual: ValueDifference.shown(value))
            }
            for (index, pair) in pairs.enumerated() {
                let entry = entries[index]
                let keyText = ValueDifference.shown(entry.key)
                if let found = pair.key.difference(from: entry.key, at: "\(path).key(\(keyText))") { return found }
                if let found = pair.value.difference(from: entry.value, at: "\(path).value(\(keyText))") {
                    return found
                }
            }
            return nil
        case .anyOrder(let pairs, _, let written):
            guard case .map(let entries) = value, entries.count == pairs.count else {
                return ValueDifference(path: path, expected: written, actual: ValueDifference.shown(value))
            }
            var used = [Bool](repeating: false, count: entries.count)
            for pair in pairs {
                guard
                    let index = entries.indices.first(where: {
                        !used[$0] && pair.key.matches(entries[$0].key) && pair.value.matches(entries[$0].value)
                    })
                else {
                    return ValueDifference(path: path, expected: written, actual: ValueDifference.shown(value))
                }
                used[index] = true
            }
            return nil
        case .any(let type, _, let written):
            return type.admits(value)
                ? nil : ValueDifference(path: path, expected: written, actual: ValueDifference.shown(value))
        case .regex(let source, _, let written):
            guard case .string(let string) = value, Self.wholeMatch(string, source) else {
                return ValueDifference(path: path, expected: written, actual: ValueDifference.shown(value))
            }
            return nil
        case .range(let min, let max, let type, _, let written):
            guard Self.inRange(value, min: min, max: max, type: type) else {
                return ValueDifference(path: path, expected: written, actual: ValueDifference.shown(value))
            }
            return nil
        }
    }

    /// Exact comparison; between two lists or two maps of the same count the difference is sought
    /// inside, so that a diff names the element that differs rather than the whole value.
    static func exactDifference(expected: StandardValue, actual: StandardValue, at path: String) -> ValueDifference? {
        if expected == actual { return nil }
        switch (expected, actual) {
        case (.list(let want), .list(let got)) where want.count == got.count:
            for index in want.indices {
                if let found = exactDifference(expected: want[index], actual: got[index], at: "\(path)[\(index)]") {
                    return found
                }
            }
        case (.map(let want), .map(let got)) where want.count == got.count:
            for index in want.indices {
                let keyText = ValueDifference.shown(want[index].key)
                if let found = exactDifference(
                    expected: want[index].key, actual: got[index].key, at: "\(path).key(\(keyText))")
                {
                    return found
                }
                if let found = exactDifference(
                    expected: want[index].value, actual: got[index].value, at: "\(path).value(\(keyText))")
                {
                    return found
                }
            }
        default:
            break
        }
        return ValueDifference(
            path: path, expected: ValueDifference.shown(expected), actual: ValueDifference.shown(actual))
    }

    static func wholeMatch(_ string: String, _ source: String) -> Bool {
        guard let regex = try? Regex(source) else { return false }
        return (try? regex.wholeMatch(in: string)) != nil
    }

    static func inRange(_ value: StandardValue, min: Double?, max: Double?, type: TypeName?) -> Bool {
        if let type, !type.admits(value) { return false }
        let number: Double
        switch value {
        case .int32(let int): number = Double(int)
        case .int64(let int): number = Double(int)
        case .float64(let double): number = double
        default: return false
        }
        if number.isNaN { return false }
        if let min, number < min { return false }
        if let max, number > max { return false }
        return true
    }
}

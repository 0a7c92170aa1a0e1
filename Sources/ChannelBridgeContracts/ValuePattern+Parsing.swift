import ChannelBridgeCodec

extension ValuePattern {
    /// Reads a TVN value that may hold matchers (Protocol/transcript.md §4). A value with no
    /// matcher anywhere is read by TVN itself, so its exact semantics are TVN's.
    static func parse(_ field: Field) throws(TranscriptError) -> ValuePattern {
        guard Self.holdsMatcher(field.json) else { return .exact(try field.value()) }
        switch field.json {
        case .array:
            return .list(
                try field.array().map { (element: Field) throws(TranscriptError) -> ValuePattern in try parse(element)
                },
                written: field.json.text)
        case .object(let members):
            if members.count == 1, members[0].key == "map" {
                let pairs = try Field(members[0].value, path: field.path + ".map").array()
                return .map(
                    try pairs.map { (pair: Field) throws(TranscriptError) -> Pair in try parsePair(pair) },
                    written: field.json.text)
            }
            return try parseMatcher(field, members)
        default:
            return .exact(try field.value())
        }
    }

    private static func parsePair(_ field: Field) throws(TranscriptError) -> Pair {
        let parts = try field.array()
        guard parts.count == 2 else {
            throw field.error("a map pair must be [key, value], got \(parts.count) elements")
        }
        return Pair(try parse(parts[0]), try parse(parts[1]))
    }

    /// Whether `json` is, or holds, an object with a member named `$…`.
    static func holdsMatcher(_ json: JSONValue) -> Bool {
        switch json {
        case .array(let elements):
            return elements.contains(where: holdsMatcher)
        case .object(let members):
            return members.contains { $0.key.hasPrefix("$") || holdsMatcher($0.value) }
        default:
            return false
        }
    }

    private static let operators: Set<String> = ["$any", "$regex", "$anyOrder", "$range", "$type", "example"]

    private static func parseMatcher(
        _ field: Field, _ members: [JSONValue.Member]
    ) throws(TranscriptError) -> ValuePattern {
        let found = try field.members(allowed: operators)
        let written = field.json.text
        var example: StandardValue?
        if let exampleField = found["example"] { example = try exampleField.value() }
        let pattern: ValuePattern
        if let any = found["$any"] {
            try only(found, "$any", field)
            let name = try any.string()
            guard let type = TypeName(rawValue: name) else {
                throw any.error(
                    "unknown type '\(name)' (expected one of: \(TypeName.allCases.map(\.rawValue).joined(separator: ", ")))"
                )
            }
            pattern = .any(type, example: example, written: written)
        } else if let regex = found["$regex"] {
            try only(found, "$regex", field)
            let source = try regex.string()
            do {
                _ = try Regex(source)
            } catch {
                throw regex.error("not a regular expression: \(error)")
            }
            pattern = .regex(source, example: example, written: written)
        } else if let anyOrder = found["$anyOrder"] {
            try only(found, "$anyOrder", field)
            let pairs = try anyOrder.array().map { (pair: Field) throws(TranscriptError) -> Pair in try parsePair(pair)
            }
            pattern = .anyOrder(pairs, example: example, written: written)
        } else if let range = found["$range"] {
            let bounds = try range.array()
            guard bounds.count == 2 else { throw range.error("expected [MIN, MAX], got \(bounds.count) elements") }
            var type: TypeName?
            if let typeField = found["$type"] {
                let name = try typeField.string()
                guard let numeric = TypeName(rawValue: name), [.int32, .int64, .int, .float64].contains(numeric) else {
                    throw typeField.error("a range's type must be int32, int64, int or float64, got '\(name)'")
                }
                type = numeric
            }
            let min = try bound(bounds[0]), max = try bound(bounds[1])
            if let min, let max, min > max { throw range.error("MIN \(min) is above MAX \(max)") }
            pattern = .range(min: min, max: max, type: type, example: example, written: written)
        } else {
            throw field.error("a matcher needs one of $any, $regex, $anyOrder, $range")
        }
        if let example, let difference = pattern.difference(from: example, at: field.path + ".example") {
            throw field.error("the example does not match: \(difference)")
        }
        return pattern
    }

    private static func only(_ found: [String: Field], _ name: String, _ field: Field) throws(TranscriptError) {
        for key in found.keys where key != name && key != "example" {
            throw field.error("\(name) cannot be combined with \(key)")
        }
    }

    private static func bound(_ field: Field) throws(TranscriptError) -> Double? {
        switch field.json {
        case .null:
            return nil
        case .number(let text):
            guard let value = Double(text), value.isFinite else { throw field.error("not a finite number: \(text)") }
            return value
        default:
            throw field.error("a bound must be a JSON number or null, got \(Field.kind(field.json))")
        }
    }
}

public import struct FoundationEssentials.Data

// Reading ordinary Swift values back out of a StandardValue; each returns nil on a type mismatch.
extension StandardValue {
    public var isNull: Bool { self == .null }

    public var boolValue: Bool? {
        if case .bool(let v) = self { return v }
        return nil
    }

    /// An int32 or int64 as `Int`.
    public var intValue: Int? {
        switch self {
        case .int32(let v): return Int(v)
        case .int64(let v): return Int(exactly: v)
        default: return nil
        }
    }

    /// A float64, or an integer widened to `Double`.
    public var doubleValue: Double? {
        switch self {
        case .float64(let v): return v
        case .int32(let v): return Double(v)
        case .int64(let v): return Double(v)
        default: return nil
        }
    }

    public var stringValue: String? {
        if case .string(let v) = self { return v }
        return nil
    }

    public var bytesValue: [UInt8]? {
        if case .uint8List(let v) = self { return v }
        return nil
    }

    public var dataValue: Data? { bytesValue.map { Data($0) } }

    public var listValue: [StandardValue]? {
        if case .list(let v) = self { return v }
        return nil
    }

    /// A list whose elements are all strings.
    public var stringListValue: [String]? {
        guard case .list(let elements) = self else { return nil }
        var strings: [String] = []
        for element in elements {
            guard case .string(let s) = element else { return nil }
            strings.append(s)
        }
        return strings
    }

    public var mapEntries: [MapEntry]? {
        if case .map(let v) = self { return v }
        return nil
    }

    /// A map whose keys are all strings, as a dictionary (a later duplicate key wins, as in Dart).
    /// A Swift `Dictionary` keyed by `String` holds canonically equivalent keys (`"\u{E9}"` and
    /// `"e\u{301}"`) as one, so the later of them wins too; `mapEntries` and the subscripts keep
    /// them apart.
    public var dictionaryValue: [String: StandardValue]? {
        guard case .map(let entries) = self else { return nil }
        var dictionary: [String: StandardValue] = [:]
        for entry in entries {
            guard case .string(let key) = entry.key else { return nil }
            dictionary[key] = entry.value
        }
        return dictionary
    }

    /// The value under a string key in a map.
    public subscript(key: String) -> StandardValue? {
        self[.string(key)]
    }
}

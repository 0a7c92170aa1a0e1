// Dictionaries cross as maps with keys of their own type, in both directions.

/// Dictionaries, which become maps with their own keys rather than what `Dictionary.encode(to:)`
/// makes (string-keyed containers for `String` and `Int` keys, a flat key-value list otherwise).
protocol StandardMapEncodable {
    func encodeStandardMap(with encoder: ValueEncoder) throws -> StandardValue
}

extension Dictionary: StandardMapEncodable where Key: Encodable, Value: Encodable {
    func encodeStandardMap(with encoder: ValueEncoder) throws -> StandardValue {
        var entries: [StandardValue.MapEntry] = []
        entries.reserveCapacity(count)
        for (index, (key, value)) in enumerated() {
            let encodedKey = try encoder.box(key, key: StandardCodingKey(keyOfEntry: index))
            let encodedValue = try encoder.box(value, key: StandardCodingKey(mapKey: encodedKey))
            entries.append(StandardValue.MapEntry(encodedKey, encodedValue))
        }
        sortIfOrderable(&entries)
        return .map(entries)
    }
}

/// Sorts entries whose keys are all strings, or all integers, so that a dictionary encodes to the
/// same bytes on every run; anything else keeps the dictionary's order.
private func sortIfOrderable(_ entries: inout [StandardValue.MapEntry]) {
    guard entries.count > 1 else { return }
    if entries.allSatisfy({ if case .string = $0.key { true } else { false } }) {
        entries.sort { lhs, rhs in
            guard case .string(let a) = lhs.key, case .string(let b) = rhs.key else { return false }
            return a < b
        }
    } else if entries.allSatisfy({ $0.key.intValue != nil }) {
        entries.sort { ($0.key.intValue ?? 0) < ($1.key.intValue ?? 0) }
    }
}

/// Dictionaries, read from a map's entries with keys of their own type rather than through a
/// string-keyed container as `Dictionary.init(from:)` would.
protocol StandardMapDecodable {
    init(standardMap entries: [StandardValue.MapEntry], decoder: ValueDecoder) throws
}

extension Dictionary: StandardMapDecodable where Key: Decodable, Value: Decodable {
    init(standardMap entries: [StandardValue.MapEntry], decoder: ValueDecoder) throws {
        self.init(minimumCapacity: entries.count)
        for (index, entry) in entries.enumerated() {
            let key = try decoder.unbox(entry.key, as: Key.self, key: StandardCodingKey(keyOfEntry: index))
            // A later duplicate key wins, as when Dart reads the map.
            self[key] = try decoder.unbox(entry.value, as: Value.self, key: StandardCodingKey(mapKey: entry.key))
        }
    }
}

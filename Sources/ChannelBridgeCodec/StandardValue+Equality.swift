// Values compare as their bytes do. Floating-point payloads compare by bit pattern: a value model
// that is used as dictionary keys and round-trips bytes must not lose NaN (NaN != NaN under IEEE)
// nor merge -0.0 with 0.0. Strings compare by UTF-8 code units, as Dart compares them (by UTF-16
// code units, the same relation for valid Unicode): Swift's canonical equivalence would merge
// "\u{E9}" and "e\u{301}", two keys to Dart and two different byte strings on the wire.

extension StandardValue: Equatable {
    public static func == (lhs: StandardValue, rhs: StandardValue) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): return true
        case let (.bool(a), .bool(b)): return a == b
        case let (.int32(a), .int32(b)): return a == b
        case let (.int64(a), .int64(b)): return a == b
        case let (.float64(a), .float64(b)): return a.bitPattern == b.bitPattern
        case let (.string(a), .string(b)): return CodeUnitString.equal(a, b)
        case let (.uint8List(a), .uint8List(b)): return a == b
        case let (.int32List(a), .int32List(b)): return a == b
        case let (.int64List(a), .int64List(b)): return a == b
        case let (.float32List(a), .float32List(b)):
            return a.count == b.count && zip(a, b).allSatisfy { $0.bitPattern == $1.bitPattern }
        case let (.float64List(a), .float64List(b)):
            return a.count == b.count && zip(a, b).allSatisfy { $0.bitPattern == $1.bitPattern }
        case let (.list(a), .list(b)): return a == b
        case let (.map(a), .map(b)): return a == b
        case let (.custom(a), .custom(b)): return a == b
        default: return false
        }
    }
}

extension StandardValue: Hashable {
    public func hash(into hasher: inout Hasher) {
        hasher.combine(typeTag)
        switch self {
        case .null: break
        case .bool(let v): hasher.combine(v)
        case .int32(let v): hasher.combine(v)
        case .int64(let v): hasher.combine(v)
        case .float64(let v): hasher.combine(v.bitPattern)
        case .string(let v): CodeUnitString.hash(v, into: &hasher)
        case .uint8List(let v): hasher.combine(v)
        case .int32List(let v): hasher.combine(v)
        case .int64List(let v): hasher.combine(v)
        case .float32List(let v):
            hasher.combine(v.count)
            for x in v { hasher.combine(x.bitPattern) }
        case .float64List(let v):
            hasher.combine(v.count)
            for x in v { hasher.combine(x.bitPattern) }
        case .list(let v): hasher.combine(v)
        case .map(let v): hasher.combine(v)
        case .custom(let v): hasher.combine(v)
        }
    }
}

import struct FoundationEssentials.Data

/// The `Encoder` behind `StandardValueEncoder`: one per value that opens containers of its own.
/// Scalars, byte arrays and arrays of numbers or strings are written directly, without one, which
/// is most of what makes encoding cheap.
final class ValueEncoder: Encoder {
    struct Options {
        let typedLists: Bool
        let userInfo: [CodingUserInfoKey: Any]

        init(_ encoder: StandardValueEncoder) {
            typedLists = encoder.typedListStrategy == .typedLists
            userInfo = encoder.userInfo.isEmpty ? [:] : encoder.userInfo.mapValues { $0 as Any }
        }
    }

    /// What has been encoded at this level so far.
    enum Storage {
        case empty
        case value(StandardValue)
        case map(MapBuilder)
        case list(ListBuilder)
    }

    let options: Options
    /// The encoder of the enclosing value, and this value's key in it: the coding path, kept as
    /// links so that nothing is built unless someone asks for the path.
    private let parent: ValueEncoder?
    private let key: (any CodingKey)?
    var storage: Storage = .empty

    init(options: Options, parent: ValueEncoder? = nil, key: (any CodingKey)? = nil) {
        self.options = options
        self.parent = parent
        self.key = key
    }

    var codingPath: [any CodingKey] {
        var path: [any CodingKey] = []
        var node: ValueEncoder? = self
        while let current = node {
            if let key = current.key { path.append(key) }
            node = current.parent
        }
        return path.reversed()
    }

    var userInfo: [CodingUserInfoKey: Any] { options.userInfo }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        KeyedEncodingContainer(KeyedValueEncodingContainer<Key>(encoder: self, map: mapBuilder()))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        UnkeyedValueEncodingContainer(encoder: self, list: listBuilder())
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        SingleValueValueEncodingContainer(encoder: self)
    }

    /// The map this level writes into; asking twice gives the same one, as with `JSONEncoder`.
    func mapBuilder() -> MapBuilder {
        switch storage {
        case .map(let map):
            return map
        case .empty:
            let map = MapBuilder()
            storage = .map(map)
            return map
        case .value, .list:
            preconditionFailure("a keyed container was asked for at `\(renderCodingPath(codingPath))` where a different kind of value was already encoded")
        }
    }

    func listBuilder() -> ListBuilder {
        switch storage {
        case .list(let list):
            return list
        case .empty:
            let list = ListBuilder()
            storage = .list(list)
            return list
        case .value, .map:
            preconditionFailure("an unkeyed container was asked for at `\(renderCodingPath(codingPath))` where a different kind of value was already encoded")
        }
    }

    /// Sets this level's single value.
    func setSingleValue(_ value: StandardValue) {
        guard case .empty = storage else {
            preconditionFailure("a second value was encoded through a single value container at `\(renderCodingPath(codingPath))`")
        }
        storage = .value(value)
    }

    /// What was encoded at this level; `nil` when nothing was.
    func takeValue() throws -> StandardValue? {
        switch storage {
        case .empty: return nil
        case .value(let value): return value
        case .map(let map): return try map.finish()
        case .list(let list): return try list.finish()
        }
    }

    /// `value` encoded one level down, under `key` (`nil` for a single value container, which adds
    /// no level to the path).
    func box<T: Encodable>(_ value: T, key: (any CodingKey)?) throws -> StandardValue {
        if let special = try encodeSpecial(value, key: key) { return special }
        let child = ValueEncoder(options: options, parent: self, key: key)
        try value.encode(to: child)
        // A value that opened no container at all is an empty map, as an empty object in JSONEncoder.
        return try child.takeValue() ?? .map([])
    }

    /// The types whose Standard form is not what their `encode(to:)` would make (byte arrays,
    /// typed lists, dictionaries with any keys), and arrays that are cheaper written directly.
    func encodeSpecial<T: Encodable>(_ value: T, key: (any CodingKey)? = nil) throws -> StandardValue? {
        // Each check compares type metadata, so a struct that is none of these costs a few compares.
        if T.self == [Int32].self {
            let array = unsafeBitCast(value, to: [Int32].self)
            return options.typedLists ? .int32List(array) : .list(array.map { .int32($0) })
        }
        if T.self == [String].self { return .list(unsafeBitCast(value, to: [String].self).map { .string($0) }) }
        if T.self == [UInt8].self { return .uint8List(unsafeBitCast(value, to: [UInt8].self)) }
        if T.self == Data.self { return .uint8List([UInt8](unsafeBitCast(value, to: Data.self))) }
        if T.self == [Double].self {
            let array = unsafeBitCast(value, to: [Double].self)
            return options.typedLists ? .float64List(array) : .list(array.map { .float64($0) })
        }
        if T.self == [Int].self { return .list(unsafeBitCast(value, to: [Int].self).map { .int($0) }) }
        if T.self == [Int64].self {
            let array = unsafeBitCast(value, to: [Int64].self)
            return options.typedLists ? .int64List(array) : .list(array.map { .int($0) })
        }
        if T.self == [Float].self {
            let array = unsafeBitCast(value, to: [Float].self)
            return options.typedLists ? .float32List(array) : .list(array.map { .float64(Double($0)) })
        }
        if T.self == [Bool].self { return .list(unsafeBitCast(value, to: [Bool].self).map { .bool($0) }) }
        if T.self == StandardValue.self { return unsafeBitCast(value, to: StandardValue.self) }
        if let dictionary = value as? any StandardMapEncodable {
            let child = ValueEncoder(options: options, parent: self, key: key)
            return try dictionary.encodeStandardMap(with: child)
        }
        return nil
    }

    /// An unsigned integer Dart's `int` may not hold.
    func unsigned<T: FixedWidthInteger & UnsignedInteger>(_ value: T, key: (any CodingKey)?) throws -> StandardValue {
        if let small = Int32(exactly: value) { return .int32(small) }
        if let large = Int64(exactly: value) { return .int64(large) }
        throw EncodingError.invalidValue(value, EncodingError.Context(
            codingPath: codingPath + (key.map { [$0] } ?? []),
            debugDescription: "\(T.self) \(value) does not fit in a Dart int (64-bit signed)"))
    }

    /// A 128-bit integer, when it fits in 64 bits.
    func wide<T: FixedWidthInteger>(_ value: T, key: (any CodingKey)?) throws -> StandardValue {
        if let small = Int32(exactly: value) { return .int32(small) }
        if let large = Int64(exactly: value) { return .int64(large) }
        throw EncodingError.invalidValue(value, EncodingError.Context(
            codingPath: codingPath + (key.map { [$0] } ?? []),
            debugDescription: "\(T.self) \(value) does not fit in a Dart int (64-bit signed)"))
    }
}

/// A value that is not known yet when its slot is made: a nested container's, or a super encoder's.
enum PendingValue {
    case map(MapBuilder)
    case list(ListBuilder)
    case encoder(ValueEncoder)

    func finish() throws -> StandardValue {
        switch self {
        case .map(let map): return try map.finish()
        case .list(let list): return try list.finish()
        case .encoder(let encoder): return try encoder.takeValue() ?? .map([])
        }
    }
}

/// The entries of a keyed container, in the order they were encoded. A key encoded again replaces
/// its value in place (the later value wins, as in `JSONEncoder` and in Dart's map reading).
final class MapBuilder {
    private var entries: [StandardValue.MapEntry] = []
    private var pending: [(index: Int, value: PendingValue)] = []
    /// One bit per (length, last byte) class of the keys written so far: a new key whose bit is
    /// clear cannot be a repeat, so the common case compares no strings at all.
    private var seen: UInt64 = 0

    @discardableResult
    func set(_ key: String, _ value: StandardValue) -> Int {
        let utf8 = key.utf8
        let bit: UInt64 = 1 << UInt64(truncatingIfNeeded: (utf8.count &* 7 &+ Int(utf8.last ?? 0)) & 63)
        if seen & bit != 0, let index = index(of: key) {
            entries[index].value = value
            if !pending.isEmpty { pending.removeAll { $0.index == index } }
            return index
        }
        seen |= bit
        entries.append(StandardValue.MapEntry(.string(key), value))
        return entries.count - 1
    }

    func setPending(_ key: String, _ value: PendingValue) {
        let index = set(key, .null)
        pending.append((index, value))
    }

    private func index(of key: String) -> Int? {
        entries.firstIndex { entry in
            if case .string(let existing) = entry.key { return existing == key }
            return false
        }
    }

    func finish() throws -> StandardValue {
        for (index, value) in pending { entries[index].value = try value.finish() }
        pending = []
        return .map(entries)
    }
}

/// The elements of an unkeyed container.
final class ListBuilder {
    private(set) var elements: [StandardValue] = []
    private var pending: [(index: Int, value: PendingValue)] = []

    var count: Int { elements.count }

    func append(_ value: StandardValue) {
        elements.append(value)
    }

    func appendPending(_ value: PendingValue) {
        pending.append((elements.count, value))
        elements.append(.null)
    }

    func finish() throws -> StandardValue {
        for (index, value) in pending { elements[index] = try value.finish() }
        pending = []
        return .list(elements)
    }
}

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

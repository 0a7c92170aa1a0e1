import struct FoundationEssentials.Data

/// The `Encoder` behind `StandardValueEncoder`: one per value that opens containers of its own,
/// holding what its containers write. Scalars, byte arrays and arrays of numbers or strings are
/// written directly, without one, which is most of what makes encoding cheap.
///
/// The mutable stored properties skip the runtime exclusivity checks: an encoder is used by one
/// `encode(to:)` call on one thread, and no access to it overlaps another; on a struct of scalar
/// fields the checks cost about as much as the writes themselves.
final class ValueEncoder: Encoder {
    struct Options {
        let typedLists: Bool
        let userInfo: [CodingUserInfoKey: Any]

        init(_ encoder: StandardValueEncoder) {
            typedLists = encoder.typedListStrategy == .typedLists
            userInfo = encoder.userInfo.isEmpty ? [:] : encoder.userInfo.mapValues { $0 as Any }
        }
    }

    /// What kind of value this level holds so far.
    private enum Kind {
        case empty, single, keyed, unkeyed
    }

    let options: Options
    /// The encoder of the enclosing value, and this value's key in it: the coding path, kept as
    /// links so that nothing is built unless someone asks for the path.
    private let parent: ValueEncoder?
    private let key: (any CodingKey)?
    /// How many entries a map of this type had the last time, if known.
    private let capacityHint: Int

    @exclusivity(unchecked) private var kind = Kind.empty
    @exclusivity(unchecked) private var single = StandardValue.null
    /// A keyed container's entries, in the order they were first encoded.
    @exclusivity(unchecked) private var entries: [StandardValue.MapEntry] = []
    /// An unkeyed container's elements.
    @exclusivity(unchecked) private var elements: [StandardValue] = []
    /// Slots whose value a nested container or super encoder writes later.
    @exclusivity(unchecked) private var pending: [(index: Int, encoder: ValueEncoder)] = []
    /// A 256-bit filter of the keys written so far: a key whose bit is clear cannot be a repeat,
    /// so the common case compares no strings at all.
    @exclusivity(unchecked) private var seen: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)

    init(options: Options, parent: ValueEncoder? = nil, key: (any CodingKey)? = nil, capacityHint: Int = 0) {
        self.options = options
        self.parent = parent
        self.key = key
        self.capacityHint = capacityHint
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
        startKeyed()
        return KeyedEncodingContainer(KeyedValueEncodingContainer<Key>(encoder: self))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        startUnkeyed()
        return UnkeyedValueEncodingContainer(encoder: self)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        SingleValueValueEncodingContainer(encoder: self)
    }

    /// A child encoder for a nested container or super encoder, whose value lands in a slot here later.
    func nested(key: some CodingKey) -> ValueEncoder {
        ValueEncoder(options: options, parent: self, key: key)
    }

    // MARK: Writing

    /// Makes this level a map; asking twice gives the same one, as with `JSONEncoder`.
    func startKeyed() {
        switch kind {
        case .keyed:
            return
        case .empty:
            kind = .keyed
            entries.reserveCapacity(capacityHint > 0 ? capacityHint : 8)
        case .single, .unkeyed:
            preconditionFailure(
                "a keyed container was asked for at `\(renderCodingPath(codingPath))` where a different kind of value was already encoded"
            )
        }
    }

    func startUnkeyed() {
        switch kind {
        case .unkeyed:
            return
        case .empty:
            kind = .unkeyed
        case .single, .keyed:
            preconditionFailure(
                "an unkeyed container was asked for at `\(renderCodingPath(codingPath))` where a different kind of value was already encoded"
            )
        }
    }

    /// Sets this level's single value.
    func setSingleValue(_ value: StandardValue) {
        guard case .empty = kind else {
            preconditionFailure(
                "a second value was encoded through a single value container at `\(renderCodingPath(codingPath))`")
        }
        kind = .single
        single = value
    }

    /// Writes `value` under `key`. A key written again replaces its value in place: the later
    /// value wins, as in `JSONEncoder`. Flutter's decoders disagree on repeated keys (Dart and Java
    /// keep the last, C++ the first), so none is ever sent.
    @discardableResult
    func set(_ key: String, _ value: StandardValue) -> Int {
        let hash = Self.filterHash(key)
        let bit: UInt64 = 1 << UInt64(hash & 63)
        let word: UInt64
        switch (hash >> 6) & 3 {
        case 0: word = seen.0
        case 1: word = seen.1
        case 2: word = seen.2
        default: word = seen.3
        }
        if word & bit != 0, let index = index(of: key) {
            entries[index].value = value
            if !pending.isEmpty { pending.removeAll { $0.index == index } }
            return index
        }
        switch (hash >> 6) & 3 {
        case 0: seen.0 |= bit
        case 1: seen.1 |= bit
        case 2: seen.2 |= bit
        default: seen.3 |= bit
        }
        entries.append(StandardValue.MapEntry(.string(key), value))
        return entries.count - 1
    }

    func setPending(_ key: String, _ encoder: ValueEncoder) {
        let index = set(key, .null)
        pending.append((index, encoder))
    }

    private func index(of key: String) -> Int? {
        entries.firstIndex { entry in
            if case .string(let existing) = entry.key { return CodeUnitString.equal(existing, key) }
            return false
        }
    }

    /// A cheap hash of a key for the filter: its length and its first and last eight bytes.
    @inline(__always)
    private static func filterHash(_ key: String) -> UInt {
        let hash =
            key.utf8.withContiguousStorageIfAvailable { bytes -> UInt in
                let count = bytes.count
                var hash = UInt(truncatingIfNeeded: count) &* 0x9E37_79B9_7F4A_7C15
                if count >= 8 {
                    let raw = UnsafeRawBufferPointer(bytes)
                    hash ^= UInt(truncatingIfNeeded: raw.loadUnaligned(as: UInt64.self))
                    hash ^=
                        UInt(truncatingIfNeeded: raw.loadUnaligned(fromByteOffset: count - 8, as: UInt64.self)) &* 31
                } else {
                    for byte in bytes { hash = (hash << 8) | UInt(byte) }
                }
                return hash
            } ?? UInt(truncatingIfNeeded: key.utf8.count)  // a bridged string: the length alone
        return hash ^ (hash >> 29) ^ (hash >> 47)
    }

    func append(_ value: StandardValue) {
        elements.append(value)
    }

    func appendPending(_ encoder: ValueEncoder) {
        pending.append((elements.count, encoder))
        elements.append(.null)
    }

    var elementCount: Int { elements.count }

    /// What was encoded at this level; `nil` when nothing was.
    func takeValue() throws -> StandardValue? {
        // A pending child holds this encoder as its parent: let the children go once their values
        // are taken (or the taking failed), or each nested container would leak with its parent.
        defer { if !pending.isEmpty { dismantle() } }
        switch kind {
        case .empty:
            return nil
        case .single:
            return single
        case .keyed:
            for (index, nested) in pending { entries[index].value = try nested.takeValue() ?? .map([]) }
            return .map(entries)
        case .unkeyed:
            for (index, nested) in pending { elements[index] = try nested.takeValue() ?? .map([]) }
            return .list(elements)
        }
    }

    /// Lets go of the pending children, and theirs, breaking the parent links that hold them in a
    /// cycle; for when encoding stopped (a throw) before their values were taken.
    func dismantle() {
        let children = pending
        pending = []
        for child in children { child.encoder.dismantle() }
    }

    /// The number of map entries written, for the next value of the same type.
    var entryCount: Int { kind == .keyed ? entries.count : 0 }

    // MARK: Boxing

    /// `value` encoded one level down, under `key` (`nil` for a single value container, which adds
    /// no level to the path).
    func box<T: Encodable>(_ value: T, key: (any CodingKey)?) throws -> StandardValue {
        if let special = try encodeSpecial(value, key: key) { return special }
        let child = ValueEncoder(
            options: options, parent: self, key: key, capacityHint: TypeFacts.mapCapacity(of: T.self))
        do {
            try value.encode(to: child)
        } catch {
            child.dismantle()
            throw error
        }
        TypeFacts.recordMapCapacity(child.entryCount, of: T.self)
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
        if !TypeFacts.isKnownNotDictionary(T.self) {
            if let dictionary = value as? any StandardMapEncodable {
                return try dictionary.encodeStandardMap(with: ValueEncoder(options: options, parent: self, key: key))
            }
            TypeFacts.recordNotDictionary(T.self)
        }
        return nil
    }

    /// An integer of a type wider than Dart's `int` may be: int32 or int64 when the value fits.
    func wide<T: FixedWidthInteger>(_ value: T, key: (any CodingKey)?) throws -> StandardValue {
        if let small = Int32(exactly: value) { return .int32(small) }
        if let large = Int64(exactly: value) { return .int64(large) }
        throw EncodingError.invalidValue(
            value,
            EncodingError.Context(
                codingPath: codingPath + (key.map { [$0] } ?? []),
                debugDescription: "\(T.self) \(value) does not fit in a Dart int (64-bit signed)"))
    }
}

import ChannelBridgeCodec

/// Preference values keyed by string, remembering the order keys were first stored in.
///
/// Keys are told apart by their code units (`CodeUnitString`), never by Unicode canonical
/// equivalence: `"\u{E9}"` and `"e\u{301}"` are two keys, as they are to Dart and in the file.
/// A key that is overwritten keeps its place; a removed key that is stored again goes to the end.
struct OrderedValues: Sendable, Equatable {
    private(set) var keys: [String] = []
    private var storage: [CodeUnitString: StandardValue] = [:]

    init() {}

    init(_ entries: [PreferenceEntry]) {
        for entry in entries { self[entry.key] = entry.value }
    }

    var count: Int { keys.count }
    var isEmpty: Bool { keys.isEmpty }

    subscript(key: String) -> StandardValue? {
        get { storage[CodeUnitString(key)] }
        set {
            let identity = CodeUnitString(key)
            if let newValue {
                if storage.updateValue(newValue, forKey: identity) == nil { keys.append(key) }
            } else if storage.removeValue(forKey: identity) != nil,
                let index = keys.firstIndex(where: { CodeUnitString.equal($0, key) })
            {
                keys.remove(at: index)
            }
        }
    }

    /// Removes every key and returns the removed keys in order.
    mutating func removeAll() -> [String] {
        let removed = keys
        keys = []
        storage = [:]
        return removed
    }

    var entries: [PreferenceEntry] {
        keys.map { PreferenceEntry(key: $0, value: storage[CodeUnitString($0)]!) }
    }

    static func == (lhs: OrderedValues, rhs: OrderedValues) -> Bool {
        lhs.storage == rhs.storage && lhs.keys.elementsEqual(rhs.keys, by: CodeUnitString.equal)
    }
}

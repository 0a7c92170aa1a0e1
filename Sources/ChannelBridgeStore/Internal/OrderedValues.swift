import ChannelBridgeCodec

/// Preference values keyed by string, remembering the order keys were first stored in.
///
/// A key that is overwritten keeps its place; a removed key that is stored again goes to the end.
struct OrderedValues: Sendable, Equatable {
    private(set) var keys: [String] = []
    private var storage: [String: StandardValue] = [:]

    init() {}

    init(_ entries: [PreferenceEntry]) {
        for entry in entries { self[entry.key] = entry.value }
    }

    var count: Int { keys.count }
    var isEmpty: Bool { keys.isEmpty }

    subscript(key: String) -> StandardValue? {
        get { storage[key] }
        set {
            if let newValue {
                if storage.updateValue(newValue, forKey: key) == nil { keys.append(key) }
            } else if storage.removeValue(forKey: key) != nil, let index = keys.firstIndex(of: key) {
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
        keys.map { PreferenceEntry(key: $0, value: storage[$0]!) }
    }
}

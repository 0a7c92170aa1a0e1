/// The coding keys the Standard value coders put into coding paths themselves: list indices, the
/// keys of dictionary entries, and `super`.
struct StandardCodingKey: CodingKey, Sendable {
    enum Kind: Sendable {
        /// A position in a list: `[2]` in a rendered path.
        case index
        /// A struct field or `super`: `.name`.
        case field
        /// A string key of a map decoded or encoded as a dictionary: `.name`, or `["a b"]` when
        /// it does not read as a name.
        case stringKey
        /// Any other key of such a map (an int, a bool, a list…): `[5]`, `[bool true]`.
        case otherKey
    }

    let stringValue: String
    let intValue: Int?
    let kind: Kind

    init(stringValue: String) {
        self.stringValue = stringValue
        self.intValue = nil
        self.kind = .field
    }

    init(intValue: Int) {
        self.stringValue = "\(intValue)"
        self.intValue = intValue
        self.kind = .index
    }

    /// The path element for the value under `key` in a map decoded or encoded as a dictionary.
    init(mapKey key: StandardValue) {
        switch key {
        case .string(let string):
            (stringValue, intValue, kind) = (string, nil, .stringKey)
        case .int32(let int):
            (stringValue, intValue, kind) = ("\(int)", Int(int), .otherKey)
        case .int64(let int):
            (stringValue, intValue, kind) = ("\(int)", Int(exactly: int), .otherKey)
        default:
            (stringValue, intValue, kind) = (StandardValue.describe(key), nil, .otherKey)
        }
    }

    /// The path element for the key itself of the entry at `index` of such a map.
    init(keyOfEntry index: Int) {
        (stringValue, intValue, kind) = ("key \(index)", nil, .otherKey)
    }

    static let `super` = StandardCodingKey(stringValue: "super")
}

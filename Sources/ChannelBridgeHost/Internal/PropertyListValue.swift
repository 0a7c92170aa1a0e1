import FoundationEssentials

/// One value of a property list as `PropertyListDecoder` reads it (XML, binary or OpenStep), for
/// reading an `Info.plist` without `PropertyListSerialization`, which only full Foundation has.
///
/// Kinds are tried from the most specific: `<true/>` decodes only as a boolean, so it stays one;
/// an integer is kept apart from a real; a string is tried before data and dates so that
/// OpenStep text stays text.
enum PropertyListValue: Decodable {
    case dictionary([String: PropertyListValue])
    case array([PropertyListValue])
    case string(String)
    case bool(Bool)
    case integer(Int)
    /// A `<real>` that is not whole, or an `<integer>` too large for `Int` (a count check refuses
    /// both). The decoder hands a whole real out as an `Int`, so it is an `.integer` here.
    case real(Double)
    case data(Data)
    case date(Date)
    /// A kind none of the above decodes (such as a binary plist's UID): kept, so that the rule check names
    /// the key it sits under rather than calling the whole file unreadable.
    case other

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let flag = try? container.decode(Bool.self) {
            self = .bool(flag)
        } else if let integer = try? container.decode(Int.self) {
            self = .integer(integer)
        } else if let real = try? container.decode(Double.self) {
            self = .real(real)
        } else if let text = try? container.decode(String.self) {
            self = .string(text)
        } else if let data = try? container.decode(Data.self) {
            self = .data(data)
        } else if let date = try? container.decode(Date.self) {
            self = .date(date)
        } else if let dictionary = try? container.decode([String: PropertyListValue].self) {
            self = .dictionary(dictionary)
        } else if let array = try? container.decode([PropertyListValue].self) {
            self = .array(array)
        } else {
            self = .other
        }
    }

    /// The dictionary, when the value is one.
    var dictionary: [String: PropertyListValue]? {
        if case .dictionary(let dictionary) = self { dictionary } else { nil }
    }
}

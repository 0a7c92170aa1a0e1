import FoundationEssentials

/// The activation rule of an Info.plist as `PropertyListDecoder` reads it (XML, binary or
/// OpenStep), for reading it without `PropertyListSerialization`, which only full Foundation has.
///
/// Only the keys on the way to the rule are decoded, one by one, and the rule's own entries only as
/// scalars: nothing else in the file is looked at. A binary plist's objects may refer to each other
/// in cycles; decoding the whole file as a tree followed them without end (found by fuzzing).
struct InfoPlistRuleLookup: Decodable {
    enum Outcome {
        case notADictionary
        case noExtension
        case noAttributes
        case noRule
        case rule(PropertyListValue)
    }

    var outcome: Outcome

    private struct Key: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(_ name: String) { stringValue = name }
        init?(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    init(from decoder: any Decoder) throws {
        guard let root = try? decoder.container(keyedBy: Key.self) else {
            outcome = .notADictionary
            return
        }
        guard let ext = try? root.nestedContainer(keyedBy: Key.self, forKey: Key("NSExtension")) else {
            outcome = .noExtension
            return
        }
        guard let attributes = try? ext.nestedContainer(keyedBy: Key.self, forKey: Key("NSExtensionAttributes")) else {
            outcome = .noAttributes
            return
        }
        let ruleKey = Key("NSExtensionActivationRule")
        guard attributes.contains(ruleKey) else {
            outcome = .noRule
            return
        }
        outcome = .rule(try attributes.decode(PropertyListValue.self, forKey: ruleKey))
    }
}

/// The rule: a predicate string, a dictionary of scalars, or something else.
enum PropertyListValue: Decodable {
    /// The values are scalars: a dictionary or array inside is `.other`, never decoded.
    case dictionary([String: PropertyListScalar])
    case scalar(PropertyListScalar)

    init(from decoder: any Decoder) throws {
        let scalar = try PropertyListScalar(from: decoder)
        if case .other = scalar,
            let dictionary = try? decoder.singleValueContainer().decode([String: PropertyListScalar].self)
        {
            self = .dictionary(dictionary)
        } else {
            self = .scalar(scalar)
        }
    }
}

/// One value that holds no other value, as `PropertyListDecoder` reads it.
///
/// Kinds are tried from the most specific: `<true/>` decodes only as a boolean, so it stays one;
/// an integer is kept apart from a real; a string is tried before data and dates so that
/// OpenStep text stays text.
enum PropertyListScalar: Decodable {
    case string(String)
    case bool(Bool)
    case integer(Int)
    /// A `<real>` that is not whole, or an `<integer>` too large for `Int` (a count check refuses
    /// both). The decoder hands a whole real out as an `Int`, so it is an `.integer` here.
    case real(Double)
    case data(Data)
    case date(Date)
    /// A container, or a kind none of the above decodes (such as a binary plist's UID): kept, so
    /// that the rule check names the key it sits under rather than calling the whole file unreadable.
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
        } else {
            self = .other
        }
    }
}

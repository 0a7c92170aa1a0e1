import ChannelBridgeCodec

/// A JSON value with its path in the document, for errors that name the field.
struct Field {
    let json: JSONValue
    let path: String

    init(_ json: JSONValue, path: String) {
        self.json = json
        self.path = path
    }

    func error(_ message: String) -> TranscriptError { TranscriptError(location: path, message) }

    /// The members of an object; a member not in `allowed` (and not a `_` comment), or one given
    /// twice, is an error.
    func members(allowed: Set<String>) throws(TranscriptError) -> [String: Field] {
        guard case .object(let members) = json else { throw error("expected an object, got \(Self.kind(json))") }
        var found: [String: Field] = [:]
        for member in members where !member.key.hasPrefix("_") {
            guard allowed.contains(member.key) else {
                throw error("unknown member '\(member.key)' (expected: \(allowed.sorted().joined(separator: ", ")))")
            }
            guard found[member.key] == nil else { throw error("member '\(member.key)' given twice") }
            found[member.key] = Field(member.value, path: path.isEmpty ? member.key : "\(path).\(member.key)")
        }
        return found
    }

    func string() throws(TranscriptError) -> String {
        guard case .string(let text) = json else { throw error("expected a string, got \(Self.kind(json))") }
        return text
    }

    func optionalString() throws(TranscriptError) -> String? {
        if case .null = json { return nil }
        guard case .string(let text) = json else { throw error("expected a string or null, got \(Self.kind(json))") }
        return text
    }

    func bool() throws(TranscriptError) -> Bool {
        guard case .bool(let value) = json else { throw error("expected true or false, got \(Self.kind(json))") }
        return value
    }

    func array() throws(TranscriptError) -> [Field] {
        guard case .array(let elements) = json else { throw error("expected an array, got \(Self.kind(json))") }
        return elements.enumerated().map { Field($0.element, path: "\(path)[\($0.offset)]") }
    }

    /// A strict TVN value (no matchers).
    func value() throws(TranscriptError) -> StandardValue {
        do {
            return try TypedValueNotation.value(from: json)
        } catch {
            throw self.error("not a TVN value: \(error.message)")
        }
    }

    func hex() throws(TranscriptError) -> [UInt8] {
        let text = try string()
        do {
            return try Hex.decode(text)
        } catch {
            throw self.error("not lowercase hex: \(error.message)")
        }
    }

    static func kind(_ json: JSONValue) -> String {
        switch json {
        case .null: return "null"
        case .bool: return "a boolean"
        case .number(let text): return "the number \(text)"
        case .string: return "a string"
        case .array: return "an array"
        case .object: return "an object"
        }
    }
}

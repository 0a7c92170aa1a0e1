/// A JSON document that keeps what plain JSON libraries drop: the order of an object's members and
/// the exact text of every number (so an int64 past 2^53 survives). Equality and hashing compare
/// strings and member names by their UTF-8 code units, with no Unicode normalization.
///
/// ```swift
/// let json = try JSONValue.parse(#"{"method":"exit","args":null}"#)
/// print(json.text)   // {"method":"exit","args":null}
/// ```
public enum JSONValue: Sendable, Hashable {
    case null
    case bool(Bool)
    /// A number as its literal text, already checked against JSON's number grammar.
    case number(String)
    case string(String)
    case array([JSONValue])
    case object([Member])

    public struct Member: Sendable, Hashable {
        public var key: String
        public var value: JSONValue

        public init(_ key: String, _ value: JSONValue) {
            self.key = key
            self.value = value
        }
    }

    /// Parses exactly one JSON text (surrounding white space allowed), at most `maxDepth` deep.
    public static func parse(_ bytes: some Collection<UInt8>, maxDepth: Int = 1_000) throws(CodecError) -> JSONValue {
        let array = Array(bytes)
        let result: Result<JSONValue, CodecError> = array.withUnsafeBytes { raw in
            var parser = JSONParser(raw, maxDepth: maxDepth)
            return Result { () throws(CodecError) -> JSONValue in try parser.parseDocument() }
        }
        return try result.get()
    }

    /// Parses exactly one JSON text in `bytes`, read where they lie: `parse(_:maxDepth:)` without
    /// the copy into an array of its own (and without going through a generic collection).
    package static func parse(in bytes: UnsafeRawBufferPointer, maxDepth: Int = 1_000) throws(CodecError) -> JSONValue {
        var parser = JSONParser(bytes, maxDepth: maxDepth)
        return try parser.parseDocument()
    }

    public static func parse(_ text: String, maxDepth: Int = 1_000) throws(CodecError) -> JSONValue {
        try parse(Array(text.utf8), maxDepth: maxDepth)
    }

    /// Parses a JSON codec's message: as `parse`, and numbers beyond the float64 range are refused
    /// at their offset (the codecs could not decode them); the document may take at most the
    /// message's decoding allowance (`decodedTooLarge`, codec.md §6.5).
    static func parseMessage(_ bytes: [UInt8], maxDepth: Int) throws(CodecError) -> JSONValue {
        let result: Result<JSONValue, CodecError> = bytes.withUnsafeBytes { raw in
            var parser = JSONParser(raw, maxDepth: maxDepth, finiteNumbersOnly: true, boundsMemory: true)
            return Result { () throws(CodecError) -> JSONValue in try parser.parseDocument() }
        }
        return try result.get()
    }

    /// Compact text: no white space, members in order, non-ASCII as UTF-8.
    public var text: String {
        var out: [UInt8] = []
        JSONWriter.write(self, into: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// The value of the first member named `key` (compared by code units), when this is an object.
    public subscript(key: String) -> JSONValue? {
        guard case .object(let members) = self else { return nil }
        return members.first(where: { CodeUnitString.equal($0.key, key) })?.value
    }
}

import ChannelBridgeCodec

/// Reads the bytes of `preferences.json` into a `StoredDocument`, checking everything
/// Protocol/store.md requires of a version-1 file, without building a tree of the whole file: the
/// top level and `values` are walked here, member by member, with the codec's `JSONParser`, and
/// each member's value is parsed on its own (strict JSON, then TVN) and then forgotten, so reading
/// a large group holds little more than its bytes.
///
/// Faults are reported in the order a whole-document parse would find them: invalid JSON
/// anywhere first (in the parser's words, at its offset in the file), then not an object, a member
/// given twice, the version, `values`, and last the first key that is given twice or whose value
/// is not TVN. Member names and keys are the same name when their code units are (no Unicode
/// normalization): `"\u00e9"` and `"e\u0301"` are two keys.
struct DocumentScanner {
    private let bytes: [UInt8]
    private let path: String

    static func document(from bytes: [UInt8], path: String) throws(StoreError) -> StoredDocument {
        let scanner = DocumentScanner(bytes: bytes, path: path)
        let result: Result<StoredDocument, StoreError> = bytes.withUnsafeBytes { raw in
            var parser = JSONParser(raw, maxDepth: 1_000)
            return Result { () throws(StoreError) in try scanner.scan(&parser) }
        }
        return try result.get()
    }

    private func invalidJSON(_ error: CodecError) -> StoreError {
        StoreError(.corruptFile, "preferences file '\(path)' is not valid JSON: \(error)", path: path)
    }

    private func corrupt(_ problem: String) -> StoreError {
        StoreError(.corruptFile, "preferences file '\(path)' \(problem)", path: path)
    }

    /// Runs one step of the parser, its JSON errors as this file's.
    private func json<T>(_ step: () throws(CodecError) -> T) throws(StoreError) -> T {
        do {
            return try step()
        } catch {
            throw invalidJSON(error)
        }
    }

    /// Moves past `byte` (white space before it), or fails naming what was expected.
    private func expect(_ byte: UInt8, _ what: String, _ parser: inout JSONParser) throws(StoreError) {
        parser.skipWhitespace()
        guard parser.take(byte) else { throw invalidJSON(parser.fail("expected \(what)")) }
    }

    /// The value that starts at the parser's offset, nesting at most `maxDepth` levels.
    private func value(_ parser: inout JSONParser, maxDepth: Int) throws(StoreError) -> JSONValue {
        parser.maxDepth = maxDepth
        return try json { () throws(CodecError) in try parser.parseValue() }
    }

    /// A member name (white space before it), decoded.
    private func memberName(_ parser: inout JSONParser) throws(StoreError) -> String {
        parser.skipWhitespace()
        guard parser.peek == UInt8(ascii: "\"") else { throw invalidJSON(parser.fail("expected a string key")) }
        return try json { () throws(CodecError) in try parser.parseString() }
    }

    /// After a member: true when another follows (its comma taken), false at the object's end.
    private func anotherMember(_ parser: inout JSONParser) throws(StoreError) -> Bool {
        parser.skipWhitespace()
        if parser.take(UInt8(ascii: ",")) { return true }
        try expect(UInt8(ascii: "}"), "',' or '}'", &parser)
        return false
    }

    private func scan(_ parser: inout JSONParser) throws(StoreError) -> StoredDocument {
        guard bytes.count <= StoredDocument.maximumSize else {
            throw corrupt(
                "is \(bytes.count) bytes long; this store reads files of at most \(StoredDocument.maximumSize) bytes")
        }
        parser.skipWhitespace()
        guard parser.take(UInt8(ascii: "{")) else {
            // Valid JSON that is not an object, or not JSON at all.
            _ = try json { () throws(CodecError) in try parser.parseDocument() }
            throw corrupt("is not a JSON object")
        }
        var document = StoredDocument()
        var names = Set<CodeUnitString>()
        var repeatedName: String?
        var version: JSONValue?
        var valuesFound = false
        var valuesFault: StoreError?
        parser.skipWhitespace()
        if !parser.take(UInt8(ascii: "}")) {
            repeat {
                let name = try memberName(&parser)
                if !names.insert(CodeUnitString(name)).inserted, repeatedName == nil { repeatedName = name }
                try expect(UInt8(ascii: ":"), "':'", &parser)
                parser.skipWhitespace()
                if name == "values", !valuesFound, parser.peek == UInt8(ascii: "{") {
                    valuesFound = true
                    valuesFault = try scanValues(&parser, into: &document)
                } else {
                    let start = parser.offset
                    // The object around it is the first of the 1,000 levels a document may nest.
                    let json = try value(&parser, maxDepth: 999)
                    switch name {
                    case "version": version = version ?? json
                    case "changeLog": document.changeLog = ChangeLog(json: json)
                    case "takeReceipts": document.takeReceipts = TakeReceipts(json: json) ?? TakeReceipts()
                    case "values": break
                    default: document.otherMembers.append((name, Array(bytes[start..<parser.offset])))
                    }
                }
            } while try anotherMember(&parser)
        }
        parser.skipWhitespace()
        guard parser.peek == nil else { throw invalidJSON(parser.fail("unexpected text after the JSON value")) }

        if let repeatedName { throw corrupt("has the member '\(repeatedName)' twice") }
        switch version {
        case .number("1")?:
            break
        case .number(let other)?:
            throw StoreError(
                .unsupportedVersion,
                "preferences file '\(path)' has format version \(other); this store reads version 1",
                path: path)
        default:
            throw corrupt("has no numeric \"version\"")
        }
        guard valuesFound else { throw corrupt("has no \"values\" object") }
        if let valuesFault { throw valuesFault }
        document.bytes = bytes
        document.indexKeyBytes()
        return document
    }

    /// Walks the `values` object at the parser's offset, recording each member's place. Returns
    /// the first fault that is not a JSON error (a key given twice, a value that is not TVN), which
    /// the caller reports only once the rest of the file has been checked.
    private func scanValues(
        _ parser: inout JSONParser, into document: inout StoredDocument
    ) throws(StoreError)
        -> StoreError?
    {
        var keys: [String] = []
        var notation: (position: Int, fault: StoreError)?
        _ = parser.take(UInt8(ascii: "{"))
        parser.skipWhitespace()
        if parser.take(UInt8(ascii: "}")) { return nil }
        repeat {
            parser.skipWhitespace()
            let start = parser.offset
            let key = try memberName(&parser)
            try expect(UInt8(ascii: ":"), "':'", &parser)
            parser.skipWhitespace()
            let valueStart = parser.offset
            let json = try value(&parser, maxDepth: StoredDocument.valueDepthLimit)
            // A string (the commonest value) is TVN as it is.
            if notation == nil, case .string = json {
            } else if notation == nil {
                do {
                    _ = try TypedValueNotation.value(from: json)
                } catch {
                    notation = (
                        keys.count,
                        StoreError(
                            .corruptFile,
                            "preferences file '\(path)': the value of key '\(key)' is not typed value notation: \(error)",
                            path: path)
                    )
                }
            }
            keys.append(key)
            document.entries.append(StoredDocument.Entry(start: start, valueStart: valueStart, end: parser.offset))
        } while try anotherMember(&parser)
        // The index is built once, at its final size.
        document.index.reserveCapacity(keys.count)
        for (position, key) in keys.enumerated()
        where document.index.updateValue(position, forKey: CodeUnitString(key)) != nil {
            if let notation, notation.position < position { return notation.fault }
            return corrupt("has the key '\(key)' twice")
        }
        return notation?.fault
    }
}

import ChannelBridgeCodec

/// Reads the bytes of `preferences.json` into a `StoredDocument`, checking everything
/// Protocol/store.md requires of a version-1 file, without building a tree of the whole file:
/// the top level and `values` are walked here, and each member's value is checked on its own
/// (strict JSON, then TVN) and then forgotten, so reading a large group holds little more than
/// its bytes.
///
/// Faults are reported in the order a whole-document parse would find them: invalid JSON
/// anywhere first, then not an object, a member given twice, the version, `values`, and last the
/// first key that is given twice or whose value is not TVN. Member names and keys are the same
/// name when their code units are (no Unicode normalization): `"\u00e9"` and `"e\u0301"` are
/// two keys.
struct DocumentScanner {
    private let bytes: [UInt8]
    private let path: String
    private var offset = 0

    private init(_ bytes: [UInt8], path: String) {
        self.bytes = bytes
        self.path = path
    }

    static func document(from bytes: [UInt8], path: String) throws(StoreError) -> StoredDocument {
        var scanner = DocumentScanner(bytes, path: path)
        return try scanner.scan()
    }

    private func invalidJSON(_ error: CodecError) -> StoreError {
        StoreError(.corruptFile, "preferences file '\(path)' is not valid JSON: \(error)", path: path)
    }

    private func invalidJSON(_ message: String) -> StoreError {
        invalidJSON(CodecError(.invalidJSON, message, offset: offset))
    }

    private func corrupt(_ problem: String) -> StoreError {
        StoreError(.corruptFile, "preferences file '\(path)' \(problem)", path: path)
    }

    private var peek: UInt8? { offset < bytes.count ? bytes[offset] : nil }

    private mutating func skipWhitespace() {
        while offset < bytes.count {
            switch bytes[offset] {
            case 0x20, 0x09, 0x0A, 0x0D: offset += 1
            default: return
            }
        }
    }

    private mutating func expect(_ byte: UInt8, _ what: String) throws(StoreError) {
        guard peek == byte else { throw invalidJSON("expected \(what)") }
        offset += 1
    }

    /// Parses `bytes[range]` as one strict JSON value; its errors name offsets in the whole file.
    private func parse(_ range: Range<Int>, maxDepth: Int) throws(StoreError) -> JSONValue {
        do {
            return try JSONValue.parse(bytes[range], maxDepth: maxDepth)
        } catch {
            throw invalidJSON(CodecError(error.code, error.message, offset: (error.offset ?? 0) + range.lowerBound))
        }
    }

    /// The end of the string starting at `offset` (its opening quote); escapes are skipped, the
    /// content is checked when the string is parsed.
    private mutating func skipString() throws(StoreError) {
        offset += 1
        while offset < bytes.count {
            switch bytes[offset] {
            case UInt8(ascii: "\\"): offset += 2
            case UInt8(ascii: "\""): offset += 1; return
            default: offset += 1
            }
        }
        throw invalidJSON("unexpected end of JSON in a string")
    }

    /// Moves past one value without checking it (its span is parsed strictly afterwards): strings
    /// and nesting are followed, so the span ends where the value does whenever the value is valid.
    private mutating func skipValue() throws(StoreError) {
        guard let first = peek else { throw invalidJSON("unexpected end of JSON") }
        switch first {
        case UInt8(ascii: "\""):
            try skipString()
        case UInt8(ascii: "{"), UInt8(ascii: "["):
            var depth = 0
            while offset < bytes.count {
                switch bytes[offset] {
                case UInt8(ascii: "\""):
                    try skipString()
                    continue
                case UInt8(ascii: "{"), UInt8(ascii: "["):
                    depth += 1
                case UInt8(ascii: "}"), UInt8(ascii: "]"):
                    depth -= 1
                    if depth == 0 {
                        offset += 1
                        return
                    }
                default:
                    break
                }
                offset += 1
            }
            throw invalidJSON("unexpected end of JSON")
        default:
            while offset < bytes.count {
                switch bytes[offset] {
                case UInt8(ascii: ","), UInt8(ascii: "}"), UInt8(ascii: "]"), 0x20, 0x09, 0x0A, 0x0D: return
                default: offset += 1
                }
            }
        }
    }

    /// The text of a JSON string with no escapes (`"…"`): the bytes between the quotes when they
    /// are valid UTF-8 with no control character, else `nil` (then the string is parsed in full).
    private func plainString(_ range: Range<Int>) -> String? {
        guard range.count >= 2, bytes[range.lowerBound] == UInt8(ascii: "\""),
            bytes[range.upperBound - 1] == UInt8(ascii: "\"")
        else { return nil }
        let inner = bytes[(range.lowerBound + 1)..<(range.upperBound - 1)]
        // `skipString` ended at the first quote not escaped, so there is none inside.
        guard !inner.contains(where: { $0 < 0x20 || $0 == UInt8(ascii: "\\") }) else { return nil }
        return String(validating: inner, as: UTF8.self)
    }

    /// A member name: the string at `offset`, decoded.
    private mutating func memberName() throws(StoreError) -> String {
        guard peek == UInt8(ascii: "\"") else { throw invalidJSON("expected a string key") }
        let start = offset
        try skipString()
        if let name = plainString(start..<offset) { return name }
        guard case .string(let name) = try parse(start..<offset, maxDepth: 1) else {
            throw invalidJSON("expected a string key")
        }
        return name
    }

    private mutating func scan() throws(StoreError) -> StoredDocument {
        guard bytes.count <= StoredDocument.maximumSize else {
            throw corrupt(
                "is \(bytes.count) bytes long; this store reads files of at most \(StoredDocument.maximumSize) bytes")
        }
        skipWhitespace()
        guard peek == UInt8(ascii: "{") else {
            // Valid JSON that is not an object, or not JSON at all.
            _ = try parse(0..<bytes.count, maxDepth: 1_000)
            throw corrupt("is not a JSON object")
        }
        offset += 1
        var document = StoredDocument()
        var names = Set<CodeUnitString>()
        var repeatedName: String?
        var version: JSONValue?
        var valuesFound = false
        var valuesFault: StoreError?
        skipWhitespace()
        if peek == UInt8(ascii: "}") {
            offset += 1
        } else {
            while true {
                skipWhitespace()
                let name = try memberName()
                if !names.insert(CodeUnitString(name)).inserted, repeatedName == nil { repeatedName = name }
                skipWhitespace()
                try expect(UInt8(ascii: ":"), "':'")
                skipWhitespace()
                if name == "values", !valuesFound, peek == UInt8(ascii: "{") {
                    valuesFound = true
                    valuesFault = try scanValues(into: &document)
                } else {
                    let start = offset
                    try skipValue()
                    let json = try parse(start..<offset, maxDepth: 999)
                    switch name {
                    case "version": version = version ?? json
                    case "changeLog": document.changeLog = ChangeLog(json: json)
                    case "takeReceipts": document.takeReceipts = TakeReceipts(json: json) ?? TakeReceipts()
                    case "values": break
                    default: document.otherMembers.append((name, Array(bytes[start..<offset])))
                    }
                }
                skipWhitespace()
                if peek == UInt8(ascii: ",") {
                    offset += 1
                    continue
                }
                try expect(UInt8(ascii: "}"), "',' or '}'")
                break
            }
        }
        skipWhitespace()
        guard offset == bytes.count else { throw invalidJSON("unexpected text after the JSON value") }

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
        return document
    }

    /// Walks the `values` object at `offset`, recording each member's place. Returns the first
    /// fault that is not a JSON error (a key given twice, a value that is not TVN), which the
    /// caller reports only once the rest of the file has been checked.
    private mutating func scanValues(into document: inout StoredDocument) throws(StoreError) -> StoreError? {
        var keys: [String] = []
        var notation: (position: Int, fault: StoreError)?
        offset += 1
        skipWhitespace()
        if peek == UInt8(ascii: "}") {
            offset += 1
            return nil
        }
        while true {
            skipWhitespace()
            let start = offset
            let key = try memberName()
            skipWhitespace()
            try expect(UInt8(ascii: ":"), "':'")
            skipWhitespace()
            let valueStart = offset
            try skipValue()
            // A string without escapes (the commonest value) is valid JSON and TVN as it is;
            // anything else is parsed strictly and read as TVN.
            if plainString(valueStart..<offset) == nil {
                let json = try parse(valueStart..<offset, maxDepth: StoredDocument.valueDepthLimit)
                if notation == nil {
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
            }
            keys.append(key)
            document.entries.append(StoredDocument.Entry(start: start, valueStart: valueStart, end: offset))
            skipWhitespace()
            if peek == UInt8(ascii: ",") {
                offset += 1
                continue
            }
            try expect(UInt8(ascii: "}"), "',' or '}'")
            break
        }
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

/// A strict JSON parser over untrusted bytes (RFC 8259): invalid UTF-8, unescaped
/// control characters, bad numbers, trailing text and nesting past the limit are all errors that
/// name the byte offset.
///
/// `parseDocument()` reads a whole text. A reader that walks a large document itself (the store's
/// `DocumentScanner`, member by member, without a tree of the whole file) moves through it with
/// `skipWhitespace()`, `peek`, `take(_:)`, `parseString()` and `parseValue()`, so that every byte
/// is read by this parser's rules and every error names its offset in the whole text.
package struct JSONParser {
    private let bytes: UnsafeRawBufferPointer
    /// The next byte to read.
    package private(set) var offset = 0
    private var depth = 0
    /// How deep the values `parseValue()` reads may nest, counted from where it starts.
    package var maxDepth: Int
    /// Refuse numbers beyond the float64 range (`1e400`) here, where their offset is known: the
    /// JSON codecs cannot decode them, and their errors name the byte.
    private let finiteNumbersOnly: Bool
    /// Bytes of memory the array elements and object members still to be parsed may take, each
    /// charged one document value (`JSONValue.Member` for a member) as it is appended, and the
    /// first of a container its array's heap header too; `Int.max`
    /// when not bounded. A codec's message is bounded (codec.md §7.3): `[0,0,…]`, the densest
    /// JSON, is 2 bytes an element on the wire and 24 in memory.
    private var allowance: Int

    package init(
        _ bytes: UnsafeRawBufferPointer, maxDepth: Int, finiteNumbersOnly: Bool = false, boundsMemory: Bool = false
    ) {
        self.bytes = bytes
        self.maxDepth = maxDepth
        self.finiteNumbersOnly = finiteNumbersOnly
        allowance = boundsMemory ? JSONMessageCodec.decodingAllowance(forMessageOf: bytes.count) : .max
    }

    @inline(__always)
    private mutating func charge(_ size: Int) throws(CodecError) {
        allowance &-= size
        if allowance < 0 { throw allowanceExceeded() }
    }

    private func allowanceExceeded() -> CodecError {
        let limit = JSONMessageCodec.decodingAllowance(forMessageOf: bytes.count)
        return CodecError(
            .decodedTooLarge,
            "JSON values would take more memory than the decoding allowance of this \(bytes.count)-byte "
                + "message: \(limit) bytes (\(JSONMessageCodec.allowanceBytesPerByte) × its size + "
                + "\(StandardMessageCodec.allowanceSlack))", offset: offset)
    }

    /// One whole JSON text from the offset: the value, white space around it, then the end.
    package mutating func parseDocument() throws(CodecError) -> JSONValue {
        skipWhitespace()
        let value = try parseValue()
        skipWhitespace()
        guard offset == bytes.count else { throw fail("unexpected text after the JSON value") }
        return value
    }

    /// An `invalidJSON` error at `position`, or at the next byte.
    package func fail(_ message: String, at position: Int? = nil) -> CodecError {
        CodecError(.invalidJSON, message, offset: position ?? offset)
    }

    /// The next byte; `nil` at the end.
    package var peek: UInt8? { offset < bytes.count ? bytes[offset] : nil }

    /// Moves past `byte` when it is next.
    package mutating func take(_ byte: UInt8) -> Bool {
        guard peek == byte else { return false }
        offset += 1
        return true
    }

    package mutating func skipWhitespace() {
        while offset < bytes.count {
            switch bytes[offset] {
            case 0x20, 0x09, 0x0A, 0x0D: offset += 1
            default: return
            }
        }
    }

    private mutating func expect(_ literal: StaticString) throws(CodecError) {
        let start = offset
        for byte in UnsafeBufferPointer(start: literal.utf8Start, count: literal.utf8CodeUnitCount) {
            guard peek == byte else { throw fail("invalid literal", at: start) }
            offset += 1
        }
    }

    /// A container being read: its elements (or members, and the key of the member whose value
    /// comes next) so far.
    private struct OpenContainer {
        var isObject: Bool
        var elements: [JSONValue] = []
        var members: [JSONValue.Member] = []
        var key = ""
    }

    /// Reads one value. Containers are kept on an explicit stack rather than by recursion, so the
    /// thread's stack use does not grow with nesting: TVN allows 3,002 levels (typed-value-notation.md §6).
    package mutating func parseValue() throws(CodecError) -> JSONValue {
        var open: [OpenContainer] = []
        nextValue: while true {
            var value: JSONValue
            guard let byte = peek else { throw fail("unexpected end of JSON") }
            switch byte {
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                let isObject = byte == UInt8(ascii: "{")
                try enter()
                offset += 1
                skipWhitespace()
                if peek == (isObject ? UInt8(ascii: "}") : UInt8(ascii: "]")) {
                    offset += 1
                    depth -= 1
                    value = isObject ? .object([]) : .array([])
                } else {
                    var container = OpenContainer(isObject: isObject)
                    if isObject { container.key = try parseKey() }
                    open.append(container)
                    continue nextValue
                }
            case UInt8(ascii: "\""): value = .string(try parseString())
            case UInt8(ascii: "t"): try expect("true"); value = .bool(true)
            case UInt8(ascii: "f"): try expect("false"); value = .bool(false)
            case UInt8(ascii: "n"): try expect("null"); value = .null
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): value = .number(try parseNumber())
            default: throw fail("unexpected character '\(Unicode.Scalar(byte))'")
            }
            // Hand the value to the containers around it, closing each one that ends here.
            while !open.isEmpty {
                let last = open.count - 1
                skipWhitespace()
                if open[last].isObject {
                    try charge(MemoryLayout<JSONValue.Member>.stride + (open[last].members.isEmpty ? 32 : 0))
                    open[last].members.append(JSONValue.Member(open[last].key, value))
                    switch peek {
                    case UInt8(ascii: ","):
                        offset += 1
                        open[last].key = try parseKey()
                        continue nextValue
                    case UInt8(ascii: "}"):
                        offset += 1
                        depth -= 1
                        value = .object(open.removeLast().members)
                    default: throw fail("expected ',' or '}'")
                    }
                } else {
                    try charge(MemoryLayout<JSONValue>.stride + (open[last].elements.isEmpty ? 32 : 0))
                    open[last].elements.append(value)
                    switch peek {
                    case UInt8(ascii: ","):
                        offset += 1
                        skipWhitespace()
                        continue nextValue
                    case UInt8(ascii: "]"):
                        offset += 1
                        depth -= 1
                        value = .array(open.removeLast().elements)
                    default: throw fail("expected ',' or ']'")
                    }
                }
            }
            return value
        }
    }

    private mutating func enter() throws(CodecError) {
        depth += 1
        if depth > maxDepth {
            throw CodecError(.nestingTooDeep, "JSON nests deeper than \(maxDepth) levels", offset: offset)
        }
    }

    /// Reads `"key" :` and the white space after it, leaving the offset at the member's value.
    private mutating func parseKey() throws(CodecError) -> String {
        skipWhitespace()
        guard peek == UInt8(ascii: "\"") else { throw fail("expected a string key") }
        let key = try parseString()
        skipWhitespace()
        guard peek == UInt8(ascii: ":") else { throw fail("expected ':'") }
        offset += 1
        skipWhitespace()
        return key
    }

    private mutating func parseNumber() throws(CodecError) -> String {
        let start = offset
        if peek == UInt8(ascii: "-") { offset += 1 }
        guard let first = peek, isDigit(first) else { throw fail("invalid number", at: start) }
        offset += 1
        if first != UInt8(ascii: "0") { skipDigits() }
        if peek == UInt8(ascii: ".") {
            offset += 1
            guard let d = peek, isDigit(d) else { throw fail("invalid number", at: start) }
            skipDigits()
        }
        if peek == UInt8(ascii: "e") || peek == UInt8(ascii: "E") {
            offset += 1
            if peek == UInt8(ascii: "+") || peek == UInt8(ascii: "-") { offset += 1 }
            guard let d = peek, isDigit(d) else { throw fail("invalid number", at: start) }
            skipDigits()
        }
        let text = String(decoding: UnsafeRawBufferPointer(rebasing: bytes[start..<offset]), as: UTF8.self)
        if finiteNumbersOnly, Int64(text) == nil, !(Double(text)?.isFinite ?? false) {
            throw fail("number \(text) is outside the float64 range", at: start)
        }
        return text
    }

    private func isDigit(_ byte: UInt8) -> Bool { byte >= 0x30 && byte <= 0x39 }

    private mutating func skipDigits() {
        while let d = peek, isDigit(d) { offset += 1 }
    }

    /// The string whose opening quote is next.
    package mutating func parseString() throws(CodecError) -> String {
        let start = offset
        offset += 1
        var utf8: [UInt8] = []
        var escaped = false
        var runStart = offset
        while true {
            guard let byte = peek else { throw fail("unterminated string", at: start) }
            if byte == UInt8(ascii: "\"") {
                let run = UnsafeRawBufferPointer(rebasing: bytes[runStart..<offset])
                offset += 1
                // Without escapes the string is its bytes: validated where they lie, not copied first.
                if !escaped {
                    guard let string = String(validating: run.assumingMemoryBound(to: UInt8.self), as: UTF8.self) else {
                        throw fail("string is not valid UTF-8", at: start)
                    }
                    return string
                }
                utf8.append(contentsOf: run)
                break
            }
            if byte < 0x20 { throw fail("unescaped control character in string") }
            if byte == UInt8(ascii: "\\") {
                escaped = true
                utf8.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[runStart..<offset]))
                try parseEscape(into: &utf8)
                runStart = offset
                continue
            }
            offset += 1
        }
        guard let string = String(validating: utf8, as: UTF8.self) else {
            throw fail("string is not valid UTF-8", at: start)
        }
        return string
    }

    private mutating func parseEscape(into utf8: inout [UInt8]) throws(CodecError) {
        let start = offset
        offset += 1
        guard let byte = peek else { throw fail("unterminated escape", at: start) }
        offset += 1
        switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): utf8.append(byte)
        case UInt8(ascii: "b"): utf8.append(0x08)
        case UInt8(ascii: "f"): utf8.append(0x0C)
        case UInt8(ascii: "n"): utf8.append(0x0A)
        case UInt8(ascii: "r"): utf8.append(0x0D)
        case UInt8(ascii: "t"): utf8.append(0x09)
        case UInt8(ascii: "u"):
            var scalar = UInt32(try parseHex4())
            if (0xD800..<0xDC00).contains(scalar) {
                guard peek == UInt8(ascii: "\\") else { throw fail("unpaired surrogate escape", at: start) }
                offset += 1
                guard peek == UInt8(ascii: "u") else { throw fail("unpaired surrogate escape", at: start) }
                offset += 1
                let low = UInt32(try parseHex4())
                guard (0xDC00..<0xE000).contains(low) else { throw fail("unpaired surrogate escape", at: start) }
                scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
            }
            guard let unicode = Unicode.Scalar(scalar) else { throw fail("unpaired surrogate escape", at: start) }
            utf8.append(contentsOf: Array(String(Character(unicode)).utf8))
        default:
            throw fail("invalid escape", at: start)
        }
    }

    private mutating func parseHex4() throws(CodecError) -> UInt16 {
        var value: UInt16 = 0
        for _ in 0..<4 {
            guard let byte = peek, let digit = hexDigitValue(byte) else { throw fail("invalid \\u escape") }
            value = value << 4 | UInt16(digit)
            offset += 1
        }
        return value
    }
}

func hexDigitValue(_ byte: UInt8) -> UInt8? {
    switch byte {
    case 0x30...0x39: return byte - 0x30
    case 0x61...0x66: return byte - 0x61 + 10
    case 0x41...0x46: return byte - 0x41 + 10
    default: return nil
    }
}

/// A strict recursive-descent JSON parser over untrusted bytes (RFC 8259): invalid UTF-8, unescaped
/// control characters, bad numbers, trailing text and nesting past the limit are all errors that
/// name the byte offset.
struct JSONParser {
    private let bytes: UnsafeRawBufferPointer
    private var offset = 0
    private var depth = 0
    private let maxDepth: Int

    init(_ bytes: UnsafeRawBufferPointer, maxDepth: Int) {
        self.bytes = bytes
        self.maxDepth = maxDepth
    }

    mutating func parseDocument() throws(CodecError) -> JSONValue {
        skipWhitespace()
        let value = try parseValue()
        skipWhitespace()
        guard offset == bytes.count else { throw fail("unexpected text after the JSON value") }
        return value
    }

    private func fail(_ message: String, at position: Int? = nil) -> CodecError {
        CodecError(.invalidJSON, message, offset: position ?? offset)
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

    private mutating func expect(_ literal: StaticString) throws(CodecError) {
        let start = offset
        for byte in UnsafeBufferPointer(start: literal.utf8Start, count: literal.utf8CodeUnitCount) {
            guard peek == byte else { throw fail("invalid literal", at: start) }
            offset += 1
        }
    }

    private mutating func parseValue() throws(CodecError) -> JSONValue {
        guard let byte = peek else { throw fail("unexpected end of JSON") }
        switch byte {
        case UInt8(ascii: "{"): return try parseObject()
        case UInt8(ascii: "["): return try parseArray()
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"): try expect("true"); return .bool(true)
        case UInt8(ascii: "f"): try expect("false"); return .bool(false)
        case UInt8(ascii: "n"): try expect("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try parseNumber())
        default: throw fail("unexpected character '\(Unicode.Scalar(byte))'")
        }
    }

    private mutating func enter() throws(CodecError) {
        depth += 1
        if depth > maxDepth { throw fail("JSON nests deeper than \(maxDepth) levels") }
    }

    private mutating func parseObject() throws(CodecError) -> JSONValue {
        try enter()
        offset += 1
        var members: [JSONValue.Member] = []
        skipWhitespace()
        if peek == UInt8(ascii: "}") {
            offset += 1
            depth -= 1
            return .object(members)
        }
        while true {
            skipWhitespace()
            guard peek == UInt8(ascii: "\"") else { throw fail("expected a string key") }
            let key = try parseString()
            skipWhitespace()
            guard peek == UInt8(ascii: ":") else { throw fail("expected ':'") }
            offset += 1
            skipWhitespace()
            members.append(JSONValue.Member(key, try parseValue()))
            skipWhitespace()
            switch peek {
            case UInt8(ascii: ","): offset += 1
            case UInt8(ascii: "}"):
                offset += 1
                depth -= 1
                return .object(members)
            default: throw fail("expected ',' or '}'")
            }
        }
    }

    private mutating func parseArray() throws(CodecError) -> JSONValue {
        try enter()
        offset += 1
        var elements: [JSONValue] = []
        skipWhitespace()
        if peek == UInt8(ascii: "]") {
            offset += 1
            depth -= 1
            return .array(elements)
        }
        while true {
            skipWhitespace()
            elements.append(try parseValue())
            skipWhitespace()
            switch peek {
            case UInt8(ascii: ","): offset += 1
            case UInt8(ascii: "]"):
                offset += 1
                depth -= 1
                return .array(elements)
            default: throw fail("expected ',' or ']'")
            }
        }
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
        return String(decoding: UnsafeRawBufferPointer(rebasing: bytes[start..<offset]), as: UTF8.self)
    }

    private func isDigit(_ byte: UInt8) -> Bool { byte >= 0x30 && byte <= 0x39 }

    private mutating func skipDigits() {
        while let d = peek, isDigit(d) { offset += 1 }
    }

    private mutating func parseString() throws(CodecError) -> String {
        let start = offset
        offset += 1
        var utf8: [UInt8] = []
        var runStart = offset
        while true {
            guard let byte = peek else { throw fail("unterminated string", at: start) }
            if byte == UInt8(ascii: "\"") {
                utf8.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[runStart..<offset]))
                offset += 1
                break
            }
            if byte < 0x20 { throw fail("unescaped control character in string") }
            if byte == UInt8(ascii: "\\") {
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

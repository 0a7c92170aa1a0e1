/// Compact JSON text: no white space, only the escapes JSON requires, non-ASCII left as UTF-8.
package enum JSONWriter {
    /// A container being written and the index of its next element or member.
    private enum Open {
        case array([JSONValue], next: Int)
        case object([JSONValue.Member], next: Int)
    }

    /// Writes without recursion (containers wait on an explicit stack), so that the 3,002 levels
    /// TVN allows cost no thread stack.
    static func write(_ value: JSONValue, into out: inout [UInt8]) {
        var open: [Open] = []
        var current = value
        while true {
            switch current {
            case .null: out.append(contentsOf: "null".utf8)
            case .bool(let flag): out.append(contentsOf: (flag ? "true" : "false").utf8)
            case .number(let text): out.append(contentsOf: text.utf8)
            case .string(let text): writeString(text, into: &out)
            case .array(let elements):
                out.append(UInt8(ascii: "["))
                if let first = elements.first {
                    open.append(.array(elements, next: 1))
                    current = first
                    continue
                }
                out.append(UInt8(ascii: "]"))
            case .object(let members):
                out.append(UInt8(ascii: "{"))
                if let first = members.first {
                    writeString(first.key, into: &out)
                    out.append(UInt8(ascii: ":"))
                    open.append(.object(members, next: 1))
                    current = first.value
                    continue
                }
                out.append(UInt8(ascii: "}"))
            }
            // `current` is written: go on with the next element of the innermost open container,
            // closing the ones that are complete.
            var resumed = false
            while !resumed, let top = open.popLast() {
                switch top {
                case .array(let elements, let next):
                    if next < elements.count {
                        out.append(UInt8(ascii: ","))
                        open.append(.array(elements, next: next + 1))
                        current = elements[next]
                        resumed = true
                    } else {
                        out.append(UInt8(ascii: "]"))
                    }
                case .object(let members, let next):
                    if next < members.count {
                        out.append(UInt8(ascii: ","))
                        writeString(members[next].key, into: &out)
                        out.append(UInt8(ascii: ":"))
                        open.append(.object(members, next: next + 1))
                        current = members[next].value
                        resumed = true
                    } else {
                        out.append(UInt8(ascii: "}"))
                    }
                }
            }
            if !resumed { return }
        }
    }

    /// A JSON string as `JSONValue.text` writes it: the two-character escapes, `\u00XX` for other
    /// control characters, everything else as UTF-8. (The store writes its change log with it.)
    package static func writeString(_ text: String, into out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\""): out.append(contentsOf: #"\""#.utf8)
            case UInt8(ascii: "\\"): out.append(contentsOf: #"\\"#.utf8)
            case 0x0A: out.append(contentsOf: #"\n"#.utf8)
            case 0x0D: out.append(contentsOf: #"\r"#.utf8)
            case 0x09: out.append(contentsOf: #"\t"#.utf8)
            case 0x08: out.append(contentsOf: #"\b"#.utf8)
            case 0x0C: out.append(contentsOf: #"\f"#.utf8)
            case 0..<0x20:
                out.append(contentsOf: #"\u00"#.utf8)
                out.append(hexDigits[Int(byte >> 4)])
                out.append(hexDigits[Int(byte & 0xF)])
            default: out.append(byte)
            }
        }
        out.append(UInt8(ascii: "\""))
    }
}

let hexDigits: [UInt8] = Array("0123456789abcdef".utf8)

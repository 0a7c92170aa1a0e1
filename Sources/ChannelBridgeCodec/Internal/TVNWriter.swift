/// Writes a value's canonical TVN text straight from the value, byte for byte what
/// `TypedValueNotation.json(for:).text` gives, without building the JSON document first: the
/// store writes every value it keeps through here, and the document took several times the
/// value's own memory (an object, an array and a string per int32 in a list).
package enum TVNWriter {
    /// The UTF-8 of `TypedValueNotation.canonicalText(value)`.
    package static func canonicalUTF8(_ value: StandardValue) -> [UInt8] {
        var out: [UInt8] = []
        write(value, into: &out)
        return out
    }

    /// Lists and maps recurse; the depth is the value's own, which the store checks first.
    static func write(_ value: StandardValue, into out: inout [UInt8]) {
        switch value {
        case .list(let elements):
            out.append(UInt8(ascii: "["))
            for index in elements.indices {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                write(elements[index], into: &out)
            }
            out.append(UInt8(ascii: "]"))
        case .map(let entries):
            open("map", into: &out)
            out.append(UInt8(ascii: "["))
            for index in entries.indices {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                out.append(UInt8(ascii: "["))
                write(entries[index].key, into: &out)
                out.append(UInt8(ascii: ","))
                write(entries[index].value, into: &out)
                out.append(UInt8(ascii: "]"))
            }
            out.append(contentsOf: "]}".utf8)
        default:
            writeScalar(value, into: &out)
        }
    }

    private static func writeScalar(_ value: StandardValue, into out: inout [UInt8]) {
        switch value {
        case .null: out.append(contentsOf: "null".utf8)
        case .bool(let flag): out.append(contentsOf: (flag ? "true" : "false").utf8)
        case .int32(let v):
            open("int32", into: &out)
            out.append(contentsOf: String(v).utf8)
            out.append(UInt8(ascii: "}"))
        case .int64(let v):
            open("int64", into: &out)
            quoted(String(v), into: &out)
            out.append(UInt8(ascii: "}"))
        case .float64(let v):
            open("float64", into: &out)
            JSONWriter.write(TypedValueNotation.float(v), into: &out)
            out.append(UInt8(ascii: "}"))
        case .string(let s):
            JSONWriter.writeString(s, into: &out)
        case .uint8List(let v):
            open("uint8list", into: &out)
            quoted(Hex.encode(v), into: &out)
            out.append(UInt8(ascii: "}"))
        case .int32List(let v):
            array("int32list", v, into: &out) { $1.append(contentsOf: String($0).utf8) }
        case .int64List(let v):
            array("int64list", v, into: &out) { quoted(String($0), into: &$1) }
        case .float64List(let v):
            array("float64list", v, into: &out) { JSONWriter.write(TypedValueNotation.float($0), into: &$1) }
        case .float32List(let v):
            array("float32list", v, into: &out) { JSONWriter.write(TypedValueNotation.float32($0), into: &$1) }
        case .custom, .list, .map:
            JSONWriter.write(TypedValueNotation.json(for: value), into: &out)
        }
    }

    /// `{"name":`
    private static func open(_ name: String, into out: inout [UInt8]) {
        out.append(contentsOf: "{\"".utf8)
        out.append(contentsOf: name.utf8)
        out.append(contentsOf: "\":".utf8)
    }

    /// A string that needs no escape (digits, a sign, hex).
    private static func quoted(_ text: String, into out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        out.append(contentsOf: text.utf8)
        out.append(UInt8(ascii: "\""))
    }

    private static func array<T>(
        _ name: String, _ elements: [T], into out: inout [UInt8],
        _ element: (T, inout [UInt8]) -> Void
    ) {
        open(name, into: &out)
        out.append(UInt8(ascii: "["))
        for index in elements.indices {
            if index > 0 { out.append(UInt8(ascii: ",")) }
            element(elements[index], &out)
        }
        out.append(contentsOf: "]}".utf8)
    }
}

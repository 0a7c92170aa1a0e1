/// Reads TVN from parsed JSON, naming the JSON path of whatever is wrong.
struct TVNReader {
    let lenient: Bool

    private func fail(_ path: String, _ message: String) -> CodecError {
        CodecError(.invalidNotation, "\(path): \(message)")
    }

    func read(_ json: JSONValue, path: String) throws(CodecError) -> StandardValue {
        switch json {
        case .null: return .null
        case .bool(let flag): return .bool(flag)
        case .string(let text): return .string(text)
        case .array(let elements):
            var values: [StandardValue] = []
            values.reserveCapacity(elements.count)
            for (index, element) in elements.enumerated() {
                values.append(try read(element, path: "\(path)[\(index)]"))
            }
            return .list(values)
        case .number(let text):
            guard lenient else {
                throw fail(path, "a bare number (\(text)) is not TVN; write {\"int32\": …}, {\"int64\": …} or {\"float64\": …}")
            }
            if let int = Int64(text) { return .int(int) }
            guard let double = Double(text) else { throw fail(path, "number \(text) is out of range") }
            return .float64(double)
        case .object(let members):
            if let typed = try readTagged(members, path: path) { return typed }
            guard lenient else {
                let keys = members.map(\.key).joined(separator: ", ")
                throw fail(path, "object with keys [\(keys)] is not a TVN tag; maps are written {\"map\": [[key, value], …]}")
            }
            var entries: [StandardValue.MapEntry] = []
            for member in members {
                entries.append(.init(.string(member.key), try read(member.value, path: "\(path).\(member.key)")))
            }
            return .map(entries)
        }
    }

    private func readTagged(_ members: [JSONValue.Member], path: String) throws(CodecError) -> StandardValue? {
        if members.count == 2, members.contains(where: { $0.key == "custom" }), let hex = members.first(where: { $0.key == "hex" }) {
            let tagJSON = members.first(where: { $0.key == "custom" })!.value
            guard case .number(let tagText) = tagJSON, let tag = UInt8(tagText), tag >= 128 else {
                throw fail(path + ".custom", "custom tag must be an integer from 128 to 255")
            }
            guard case .string(let hexText) = hex.value else { throw fail(path + ".hex", "expected a hex string") }
            return .custom(CustomValue(RawCustomValue(tag: tag, payload: try bytes(hexText, path: path + ".hex"))))
        }
        guard members.count == 1, let member = members.first else { return nil }
        let inner = member.value
        let here = "\(path).\(member.key)"
        switch member.key {
        case "int32":
            guard case .number(let text) = inner, let v = Int32(text) else {
                throw fail(here, "expected an integer that fits in 32 bits")
            }
            return .int32(v)
        case "int64": return .int64(try int64(inner, path: here))
        case "float64": return .float64(try double(inner, path: here))
        case "uint8list":
            guard case .string(let text) = inner else { throw fail(here, "expected a hex string") }
            return .uint8List(try bytes(text, path: here))
        case "int32list":
            return .int32List(try list(inner, path: here) { json, p throws(CodecError) in
                guard case .number(let text) = json, let v = Int32(text) else {
                    throw fail(p, "expected an integer that fits in 32 bits")
                }
                return v
            })
        case "int64list":
            return .int64List(try list(inner, path: here) { json, p throws(CodecError) in try int64(json, path: p) })
        case "float64list":
            return .float64List(try list(inner, path: here) { json, p throws(CodecError) in try double(json, path: p) })
        case "float32list":
            return .float32List(try list(inner, path: here) { json, p throws(CodecError) in
                if case .string(let text) = json, let bits = nanBits(text, digits: 8) {
                    return Float(bitPattern: UInt32(bits))
                }
                let wide = try double(json, path: p)
                let narrow = Float(wide)
                guard wide.isNaN || Double(narrow).bitPattern == wide.bitPattern else {
                    throw fail(p, "\(wide) is not exactly a 32-bit float")
                }
                return narrow
            })
        case "map":
            return .map(try list(inner, path: here) { json, p throws(CodecError) in
                guard case .array(let pair) = json, pair.count == 2 else {
                    throw fail(p, "expected a [key, value] pair")
                }
                return StandardValue.MapEntry(try read(pair[0], path: p + "[0]"), try read(pair[1], path: p + "[1]"))
            })
        default:
            return nil
        }
    }

    private func list<T>(_ json: JSONValue, path: String,
                         _ element: (JSONValue, String) throws(CodecError) -> T) throws(CodecError) -> [T] {
        guard case .array(let elements) = json else { throw fail(path, "expected an array") }
        var out: [T] = []
        out.reserveCapacity(elements.count)
        for (index, item) in elements.enumerated() {
            out.append(try element(item, "\(path)[\(index)]"))
        }
        return out
    }

    private func int64(_ json: JSONValue, path: String) throws(CodecError) -> Int64 {
        switch json {
        case .string(let text), .number(let text):
            if let v = Int64(text) { return v }
        default: break
        }
        throw fail(path, "expected a decimal integer that fits in 64 bits")
    }

    private func double(_ json: JSONValue, path: String) throws(CodecError) -> Double {
        switch json {
        case .number(let text):
            if let v = Double(text) { return v }
        case .string("NaN"): return .nan
        case .string("Infinity"): return .infinity
        case .string("-Infinity"): return -.infinity
        case .string("-0.0"): return -0.0
        case .string(let text):
            if let bits = nanBits(text, digits: 16) { return Double(bitPattern: bits) }
        default: break
        }
        throw fail(path, "expected a number or one of \"NaN\", \"NaN:<hex bits>\", \"Infinity\", \"-Infinity\", \"-0.0\"")
    }

    /// `NaN:` and exactly `digits` hex digits whose bits are a NaN of that width.
    private func nanBits(_ text: String, digits: Int) -> UInt64? {
        guard text.hasPrefix("NaN:"), text.utf8.count == 4 + digits,
              let bits = UInt64(text.dropFirst(4), radix: 16) else { return nil }
        let isNaN = digits == 16 ? Double(bitPattern: bits).isNaN : Float(bitPattern: UInt32(truncatingIfNeeded: bits)).isNaN
        return isNaN ? bits : nil
    }

    private func bytes(_ text: String, path: String) throws(CodecError) -> [UInt8] {
        do {
            return try Hex.decode(text)
        } catch {
            throw fail(path, error.message)
        }
    }
}

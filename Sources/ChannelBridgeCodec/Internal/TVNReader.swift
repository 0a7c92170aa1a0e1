/// Reads TVN from parsed JSON, naming the JSON path of whatever is wrong.
struct TVNReader {
    let lenient: Bool
    /// Lists and maps nested deeper than this are refused, as the Standard codec refuses them.
    let maxDepth: Int

    private func fail(_ path: String, _ message: String) -> CodecError {
        CodecError(.invalidNotation, "\(path): \(message)")
    }

    /// `depth` is the number of lists and maps around `json`.
    ///
    /// Only `read`, `readList`, `readMap` and `readPlainObject` recurse, and they keep their frames
    /// small (scalars are read in functions that are never inlined into them): a value 1,000 maps
    /// deep recurses about 3,000 calls on whatever thread reads it.
    func read(_ json: JSONValue, path: String, depth: Int) throws(CodecError) -> StandardValue {
        switch json {
        case .array(let elements): return .list(try readList(elements, path: path, depth: depth))
        case .object(let members):
            if let map = Self.mapTagValue(members) { return .map(try readMap(map, path: path, depth: depth)) }
            return try readObject(members, path: path, depth: depth)
        default: return try readScalar(json, path: path)
        }
    }

    /// Any object but a map's.
    private func readObject(_ members: [JSONValue.Member], path: String, depth: Int) throws(CodecError) -> StandardValue
    {
        if let typed = try readTagged(members, path: path) { return typed }
        return .map(try readPlainObject(members, path: path, depth: depth))
    }

    /// The value of `{"map": …}`.
    private static func mapTagValue(_ members: [JSONValue.Member]) -> JSONValue? {
        guard members.count == 1, let member = members.first, member.key == "map" else { return nil }
        return member.value
    }

    @inline(never)
    private func readScalar(_ json: JSONValue, path: String) throws(CodecError) -> StandardValue {
        switch json {
        case .null: return .null
        case .bool(let flag): return .bool(flag)
        case .string(let text): return .string(text)
        case .number(let text): return try readBareNumber(text, path: path)
        case .array, .object: preconditionFailure("containers are read by read(_:path:depth:)")
        }
    }

    private func readList(_ elements: [JSONValue], path: String, depth: Int) throws(CodecError) -> [StandardValue] {
        try enter(depth, path)
        var values: [StandardValue] = []
        values.reserveCapacity(elements.count)
        for index in elements.indices {
            values.append(try read(elements[index], path: path + "[\(index)]", depth: depth + 1))
        }
        return values
    }

    /// `{"map": [[key, value], …]}`, given the value of its `map` member.
    private func readMap(_ pairs: JSONValue, path: String, depth: Int) throws(CodecError) -> [StandardValue.MapEntry] {
        try enter(depth, path)
        let here = path + ".map"
        guard case .array(let pairs) = pairs else { throw fail(here, "expected an array") }
        var entries: [StandardValue.MapEntry] = []
        entries.reserveCapacity(pairs.count)
        for index in pairs.indices {
            let pairPath = here + "[\(index)]"
            guard case .array(let pair) = pairs[index], pair.count == 2 else {
                throw fail(pairPath, "expected a [key, value] pair")
            }
            entries.append(
                StandardValue.MapEntry(
                    try read(pair[0], path: pairPath + "[0]", depth: depth + 1),
                    try read(pair[1], path: pairPath + "[1]", depth: depth + 1)))
        }
        return entries
    }

    /// Lenient input's plain object: a map with string keys.
    private func readPlainObject(
        _ members: [JSONValue.Member], path: String,
        depth: Int
    ) throws(CodecError) -> [StandardValue.MapEntry] {
        guard lenient else { throw notATag(members, path: path) }
        try enter(depth, path)
        var entries: [StandardValue.MapEntry] = []
        entries.reserveCapacity(members.count)
        for member in members {
            entries.append(
                .init(.string(member.key), try read(member.value, path: path + "." + member.key, depth: depth + 1)))
        }
        return entries
    }

    @inline(never)
    private func notATag(_ members: [JSONValue.Member], path: String) -> CodecError {
        let keys = members.map(\.key).joined(separator: ", ")
        return fail(path, "object with keys [\(keys)] is not a TVN tag; maps are written {\"map\": [[key, value], …]}")
    }

    @inline(never)
    private func readBareNumber(_ text: String, path: String) throws(CodecError) -> StandardValue {
        guard lenient else {
            throw fail(
                path, "a bare number (\(text)) is not TVN; write {\"int32\": …}, {\"int64\": …} or {\"float64\": …}")
        }
        if let int = Int64(text) { return .int(int) }
        guard let double = Double(text) else { throw fail(path, "number \(text) is out of range") }
        return .float64(double)
    }

    /// Refuses a list or map at `depth + 1` levels when that is past the limit.
    private func enter(_ depth: Int, _ path: String) throws(CodecError) {
        if depth + 1 > maxDepth {
            throw CodecError(.nestingTooDeep, "\(path): lists and maps nest deeper than \(maxDepth) levels")
        }
    }

    /// The one-member forms other than `map`, and the custom form; `nil` for any other object.
    @inline(never)
    private func readTagged(_ members: [JSONValue.Member], path: String) throws(CodecError) -> StandardValue? {
        if members.count == 2, members.contains(where: { $0.key == "custom" }),
            let hex = members.first(where: { $0.key == "hex" })
        {
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
            return .int32List(
                try list(inner, path: here) { json, p throws(CodecError) in
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
            return .float32List(
                try list(inner, path: here) { json, p throws(CodecError) in
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
        default:
            return nil
        }
    }

    private func list<T>(
        _ json: JSONValue, path: String,
        _ element: (JSONValue, String) throws(CodecError) -> T
    ) throws(CodecError) -> [T] {
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
        throw fail(
            path, "expected a number or one of \"NaN\", \"NaN:<hex bits>\", \"Infinity\", \"-Infinity\", \"-0.0\"")
    }

    /// `NaN:` and exactly `digits` hex digits whose bits are a NaN of that width.
    private func nanBits(_ text: String, digits: Int) -> UInt64? {
        guard text.hasPrefix("NaN:"), text.utf8.count == 4 + digits,
            let bits = UInt64(text.dropFirst(4), radix: 16)
        else { return nil }
        let isNaN =
            digits == 16 ? Double(bitPattern: bits).isNaN : Float(bitPattern: UInt32(truncatingIfNeeded: bits)).isNaN
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

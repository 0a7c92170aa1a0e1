import ChannelBridgeCodec
import Foundation

/// Reads vector files in the format of `Protocol/typed-value-notation.md`.
public enum VectorFile {
    /// Every vector in one file. `name` is how the file is reported (its last path component by default).
    public static func load(path: String) throws -> [Vector] {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw CodecError(.invalidNotation, "cannot read vector file \(path)")
        }
        return try parse(Array(data), file: (path as NSString).lastPathComponent)
    }

    /// The `.json` files directly inside `directory`, in name order.
    public static func files(in directory: String) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: directory)
            .filter { $0.hasSuffix(".json") }
            .sorted()
            .map { (directory as NSString).appendingPathComponent($0) }
    }

    /// The sections that hold codec vectors; other keys (documentation, framing vectors) are skipped.
    static let codecSections: Set<String> = [
        "messages", "method_calls", "success_envelopes", "error_envelopes", "error_envelopes_with_stacktrace",
        "malformed",
    ]

    public static func parse(_ bytes: [UInt8], file: String) throws -> [Vector] {
        let root = try JSONValue.parse(bytes, maxDepth: 5_000)
        guard case .object(let sections) = root else { throw bad(file, "the file is not a JSON object") }
        var codec = VectorCodec.standard
        if case .string(let name)? = root["codec"] {
            guard let known = VectorCodec(rawValue: name) else { throw bad(file, "unknown codec \"\(name)\"") }
            codec = known
        }
        var vectors: [Vector] = []
        for section in sections where codecSections.contains(section.key) {
            guard case .array(let entries) = section.value else {
                // Files may carry other documentation keys (e.g. framing vectors); skip what is not a list.
                continue
            }
            for (index, entry) in entries.enumerated() {
                let name: String
                if case .string(let n)? = entry["name"] { name = n } else { name = "\(section.key)[\(index)]" }
                guard let check = try check(section.key, entry, file: file, name: name) else { continue }
                vectors.append(Vector(file: file, section: section.key, name: name, codec: codec, check: check))
            }
        }
        return vectors
    }

    private static func bad(_ file: String, _ message: String) -> CodecError {
        CodecError(.invalidNotation, "\(file): \(message)")
    }

    private static func check(_ section: String, _ entry: JSONValue, file: String, name: String) throws -> Vector.Check?
    {
        func field(_ key: String) throws -> JSONValue {
            guard let value = entry[key] else { throw bad(file, "\(name): missing \"\(key)\"") }
            return value
        }
        func tvn(_ key: String) throws -> StandardValue {
            try TypedValueNotation.value(from: try field(key))
        }
        func string(_ key: String) throws -> String {
            guard case .string(let s) = try field(key) else { throw bad(file, "\(name): \"\(key)\" must be a string") }
            return s
        }
        func optionalString(_ key: String) throws -> String? {
            switch try field(key) {
            case .null: return nil
            case .string(let s): return s
            default: throw bad(file, "\(name): \"\(key)\" must be a string or null")
            }
        }
        let hex = try Hex.decode(try string("hex"))
        switch section {
        case "messages":
            return .message(try tvn("value"), hex: hex)
        case "method_calls":
            return .methodCall(MethodCall(try string("method"), arguments: try tvn("args")), hex: hex)
        case "success_envelopes":
            return .successEnvelope(try tvn("result"), hex: hex)
        case "error_envelopes", "error_envelopes_with_stacktrace":
            let withStack = section == "error_envelopes_with_stacktrace"
            let error = MethodError(
                code: try string("code"), message: try optionalString("message"),
                details: try tvn("details"),
                stacktrace: withStack ? try optionalString("stacktrace") : nil)
            return .errorEnvelope(error, includingStacktrace: withStack, hex: hex)
        case "malformed":
            guard let mode = Vector.Mode(rawValue: try string("mode")) else {
                throw bad(file, "\(name): unknown mode")
            }
            switch try string("expect") {
            case "reject": return .malformed(mode, hex: hex, expected: nil)
            case "accept":
                return .malformed(
                    mode, hex: hex, expected: try expected(mode, try field("value"), file: file, name: name))
            default: throw bad(file, "\(name): expect must be \"reject\" or \"accept\"")
            }
        default:
            return nil
        }
    }

    /// Accepted method calls are written `{"method": …, "args": TVN}`; accepted envelopes
    /// `{"result": TVN}` or `{"code", "message", "details", "stacktrace"?}`.
    private static func expected(
        _ mode: Vector.Mode, _ json: JSONValue, file: String, name: String
    ) throws -> Vector.Expected {
        switch mode {
        case .message:
            return .message(try TypedValueNotation.value(from: json))
        case .methodCall:
            return .methodCall(try CodecJSONShapes.methodCall(from: json))
        case .envelope:
            return .envelope(try CodecJSONShapes.envelope(from: json))
        }
    }
}

import ChannelBridgeCodec

/// Entry point: `TypedValueNotation.parse`, strict (vector files, the store) and lenient (CLI
/// arguments). The input is read as text the way the CLI reads a line: invalid UTF-8 repaired.
enum TVNChecks {
    static func run(_ input: [UInt8], lenient: Bool) {
        let text = String(decoding: input, as: UTF8.self)
        let value: StandardValue
        do {
            value = try TypedValueNotation.parse(text, lenient: lenient)
        } catch {
            require(
                [.invalidNotation, .nestingTooDeep].contains(error.code), "TVN failed with code \(error.code): \(error)"
            )
            return
        }
        // Canonical text reads back strictly and leniently, and is a fixed point.
        let canonical = TypedValueNotation.canonicalText(value)
        let strict = CodecChecks.must("parsing canonical TVN") { () throws(CodecError) in
            try TypedValueNotation.parse(canonical)
        }
        require(strict == value, "canonical TVN reads back differently: \(canonical)")
        require(
            TypedValueNotation.canonicalText(strict) == canonical, "canonical TVN is not a fixed point: \(canonical)")
        require(
            CodecChecks.must("lenient canonical TVN") { () throws(CodecError) in
                try TypedValueNotation.parse(canonical, lenient: true)
            } == value, "lenient reading of canonical TVN differs: \(canonical)")
        if !lenient {
            require(
                CodecChecks.must("strict TVN read leniently") { () throws(CodecError) in
                    try TypedValueNotation.parse(text, lenient: true)
                } == value, "lenient reading of strict TVN differs")
        }
        // Whatever TVN reads, the Standard codec carries (typed-value-notation.md §6).
        if !CodecChecks.containsCustom(value) { CodecChecks.standardLaws(value) }
    }

    /// Canonical text of every vector value, and the committed hand-written seeds.
    static func seeds(_ source: SeedSource, _ target: String) throws -> [[UInt8]] {
        let values = try source.vectors("standard-").flatMap(\.values) + source.vectors("json-").flatMap(\.values)
        return values.map { Array(TypedValueNotation.canonicalText($0).utf8) } + (try source.committed(target))
    }
}

enum StrictTVNTarget: FuzzTarget {
    static let name = "tvn"
    static func run(_ input: [UInt8]) { TVNChecks.run(input, lenient: false) }
    static func seeds(_ source: SeedSource) throws -> [[UInt8]] { try TVNChecks.seeds(source, name) }
}

enum LenientTVNTarget: FuzzTarget {
    static let name = "tvn-lenient"
    static func run(_ input: [UInt8]) { TVNChecks.run(input, lenient: true) }
    static func seeds(_ source: SeedSource) throws -> [[UInt8]] { try TVNChecks.seeds(source, name) }
}

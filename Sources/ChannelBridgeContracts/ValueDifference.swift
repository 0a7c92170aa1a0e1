package import ChannelBridgeCodec

/// The first place where a value differs from its pattern (Protocol/transcript.md §7): where, what
/// the transcript expected (TVN or the matcher as written) and what came (canonical TVN).
package struct ValueDifference: Sendable, Hashable, CustomStringConvertible {
    /// From the value's root: `args`, `reply.success[0].value("name")`, …
    package var path: String
    package var expected: String
    package var actual: String

    package init(path: String, expected: String, actual: String) {
        self.path = path
        self.expected = expected
        self.actual = actual
    }

    /// A value's canonical TVN, cut after `limit` characters (a diff line stays readable).
    package static func shown(_ value: StandardValue, limit: Int = 200) -> String {
        let text = TypedValueNotation.canonicalText(value)
        return text.count > limit ? String(text.prefix(limit)) + "…" : text
    }

    /// `PATH: expected E, got G`.
    package var description: String { "\(path): expected \(expected), got \(actual)" }
}

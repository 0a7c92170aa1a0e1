extension String {
    /// The string without leading and trailing white space and line breaks, as Foundation's
    /// `trimmingCharacters(in: .whitespacesAndNewlines)` trims it; FoundationEssentials has neither.
    var trimmingWhitespaceAndNewlines: String {
        let scalars = unicodeScalars
        guard let first = scalars.firstIndex(where: { !$0.isWhitespaceOrNewline }) else { return "" }
        let last = scalars.lastIndex(where: { !$0.isWhitespaceOrNewline })!
        return String(scalars[first...last])
    }
}

extension Unicode.Scalar {
    /// Foundation's `CharacterSet.whitespacesAndNewlines`: Unicode's White_Space property plus
    /// U+200B ZERO WIDTH SPACE, which Foundation's older Unicode tables still count as a space.
    var isWhitespaceOrNewline: Bool {
        properties.isWhitespace || value == 0x200B
    }
}

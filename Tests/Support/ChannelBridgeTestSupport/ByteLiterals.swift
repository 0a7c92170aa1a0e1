/// Bytes from hex written with optional spaces and line breaks: `hex("07 04 65786974 00")`.
///
/// Parsed here rather than by the codec's `Hex`, so a test's expected bytes never depend on the code
/// under test. Test literals are fixed text, so a typo stops the test loudly.
public func hex(_ text: String) -> [UInt8] {
    let digits = text.filter { !$0.isWhitespace }.map { character in
        guard let digit = character.hexDigitValue else {
            preconditionFailure("not a hex digit: \(character) in \(text)")
        }
        return digit
    }
    precondition(digits.count % 2 == 0, "odd hex digit count in \(text)")
    return stride(from: 0, to: digits.count, by: 2).map { UInt8(digits[$0] << 4 | digits[$0 + 1]) }
}

/// Lowercase hex of `bytes`, optionally with `separator` between bytes; for readable comparisons.
public func hexString(_ bytes: [UInt8], separator: String = "") -> String {
    let digits = Array("0123456789abcdef")
    return bytes.map { String([digits[Int($0 >> 4)], digits[Int($0 & 0xF)]]) }.joined(separator: separator)
}

/// The UTF-8 bytes of `text`.
public func utf8(_ text: String) -> [UInt8] { Array(text.utf8) }

import ChannelBridgeCodec

/// The scalar values whose typed-value-notation text the store writes in one exact form, read
/// without the JSON parser: `true`, `false`, `null`, `{"int32":N}` and `{"int64":"N"}` as
/// `TypedValueNotation.canonicalText` writes them. Anything else, including the same values
/// written another way (white space, leading zeros, out of range), is `nil`, and is parsed in
/// full, so the result is always the parser's.
enum ScalarValueText {
    static func value(of text: UnsafeRawBufferPointer) -> StandardValue? {
        switch text.count {
        case 4 where equal(text, "true"): return .bool(true)
        case 5 where equal(text, "false"): return .bool(false)
        case 4 where equal(text, "null"): return .null
        default: break
        }
        let int32Head: StaticString = #"{"int32":"#, int64Head: StaticString = #"{"int64":""#
        if text.count > int32Head.utf8CodeUnitCount + 1, text.last == UInt8(ascii: "}"), starts(text, with: int32Head) {
            let digits = UnsafeRawBufferPointer(rebasing: text[int32Head.utf8CodeUnitCount..<(text.count - 1)])
            return integer(digits).flatMap { Int32(exactly: $0) }.map(StandardValue.int32)
        }
        if text.count > int64Head.utf8CodeUnitCount + 2, text[text.count - 2] == UInt8(ascii: "\""),
            text.last == UInt8(ascii: "}"), starts(text, with: int64Head)
        {
            let digits = UnsafeRawBufferPointer(rebasing: text[int64Head.utf8CodeUnitCount..<(text.count - 2)])
            return integer(digits).map(StandardValue.int64)
        }
        return nil
    }

    /// A JSON integer as canonical text writes it: an optional `-`, then `0` or digits that do not
    /// start with `0`; `nil` for anything else or beyond Int64.
    private static func integer(_ text: UnsafeRawBufferPointer) -> Int64? {
        var index = 0
        let negative = text.first == UInt8(ascii: "-")
        if negative { index = 1 }
        let count = text.count - index
        guard count >= 1, count <= 19 else { return nil }
        if text[index] == UInt8(ascii: "0") { return count == 1 && !negative ? 0 : nil }
        var magnitude: UInt64 = 0
        while index < text.count {
            let digit = text[index] &- UInt8(ascii: "0")
            guard digit <= 9 else { return nil }
            magnitude = magnitude * 10 + UInt64(digit)
            index += 1
        }
        if negative { return magnitude <= UInt64(Int64.max) + 1 ? Int64(truncatingIfNeeded: 0 &- magnitude) : nil }
        return magnitude <= UInt64(Int64.max) ? Int64(magnitude) : nil
    }

    private static func equal(_ text: UnsafeRawBufferPointer, _ literal: StaticString) -> Bool {
        text.count == literal.utf8CodeUnitCount && starts(text, with: literal)
    }

    private static func starts(_ text: UnsafeRawBufferPointer, with literal: StaticString) -> Bool {
        let count = literal.utf8CodeUnitCount
        guard text.count >= count else { return false }
        let bytes = literal.utf8Start
        for offset in 0..<count where text[offset] != bytes[offset] { return false }
        return true
    }
}

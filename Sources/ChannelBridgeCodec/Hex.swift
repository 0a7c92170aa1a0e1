/// Lowercase hex, the way vectors, TVN and the CLI write bytes.
public enum Hex {
    public static func encode(_ bytes: some Sequence<UInt8>) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.underestimatedCount * 2)
        for byte in bytes {
            out.append(hexDigits[Int(byte >> 4)])
            out.append(hexDigits[Int(byte & 0xF)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Accepts upper- and lowercase digits; rejects odd lengths and non-hex characters.
    public static func decode(_ text: some StringProtocol) throws(CodecError) -> [UInt8] {
        let utf8 = Array(text.utf8)
        guard utf8.count % 2 == 0 else {
            throw CodecError(.invalidNotation, "hex has an odd number of digits (\(utf8.count))")
        }
        var out = [UInt8]()
        out.reserveCapacity(utf8.count / 2)
        var index = 0
        while index < utf8.count {
            guard let high = hexDigitValue(utf8[index]), let low = hexDigitValue(utf8[index + 1]) else {
                throw CodecError(.invalidNotation, "not a hex digit at position \(index)")
            }
            out.append(high << 4 | low)
            index += 2
        }
        return out
    }
}

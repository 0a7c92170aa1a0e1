import ChannelBridgeCodec
import ChannelBridgeTestSupport

/// Values for the codec law tests: every kind, every size form, the float and integer edge cases,
/// nesting up to a chosen depth. Deterministic: the same seed gives the same values on every run.
struct LawGenerator {
    /// The three ways the Standard codec writes a size (codec.md §2.2): one byte below 254, `fe`
    /// and two bytes up to 65,535, `ff` and four bytes above.
    enum SizeForm: CaseIterable, CustomStringConvertible {
        case short, medium, long

        var range: ClosedRange<Int> {
            switch self {
            case .short: 0...253
            case .medium: 254...65_535
            case .long: 65_536...70_000
            }
        }

        /// The sizes at the form's edges, picked more often than the rest.
        var edges: [Int] {
            switch self {
            case .short: [0, 1, 252, 253]
            case .medium: [254, 255, 256, 65_534, 65_535]
            case .long: [65_536, 65_537]
            }
        }

        var description: String { "\(self == .short ? "1" : self == .medium ? "3" : "5")-byte size" }
    }

    /// The kinds that carry a size prefix.
    enum SizedKind: CaseIterable {
        case string, uint8List, int32List, int64List, float32List, float64List, list, map
    }

    var rng: SeededGenerator
    /// Share of sizes taken from the longer forms in `value(depth:)`; the rest are short.
    var longerFormChance = 0.02

    init(seed: UInt64) {
        rng = SeededGenerator(seed: seed)
    }

    mutating func chance(_ probability: Double) -> Bool {
        Double.random(in: 0..<1, using: &rng) < probability
    }

    mutating func int(_ range: ClosedRange<Int>) -> Int { Int.random(in: range, using: &rng) }

    mutating func size(_ form: SizeForm) -> Int {
        chance(0.5) ? form.edges.randomElement(using: &rng)! : int(form.range)
    }

    /// Mostly short sizes, now and then a 3-byte one (5-byte ones only in the per-form tests).
    mutating func treeSize(maximumShort: Int) -> Int {
        chance(longerFormChance) ? size(.medium) : int(0...maximumShort)
    }

    // MARK: Scalars

    mutating func int32() -> Int32 {
        chance(0.3)
            ? [0, 1, -1, 127, 128, 255, 256, .max, .min].randomElement(using: &rng)!
            : Int32(truncatingIfNeeded: rng.next())
    }

    mutating func int64() -> Int64 {
        chance(0.3)
            ? [0, -1, Int64(Int32.max), Int64(Int32.max) + 1, Int64(Int32.min) - 1, 1 << 53 + 1, .max, .min]
                .randomElement(using: &rng)! : Int64(bitPattern: rng.next())
    }

    /// Specials, NaN payloads of both signs, subnormals, and arbitrary bit patterns.
    mutating func double() -> Double {
        switch int(0...5) {
        case 0:
            return [
                .nan, -.nan, 0.0, -0.0, .infinity, -.infinity, .leastNonzeroMagnitude, .leastNormalMagnitude,
                .greatestFiniteMagnitude, -.greatestFiniteMagnitude, 0.1, 1e16, 1e-7,
            ].randomElement(using: &rng)!
        case 1: return Double(bitPattern: 0x7FF0_0000_0000_0000 | (rng.next() & 0x800F_FFFF_FFFF_FFFF) | 1)
        case 2: return Double(bitPattern: rng.next())
        default: return Double.random(in: -1e6...1e6, using: &rng)
        }
    }

    mutating func float() -> Float {
        switch int(0...4) {
        case 0:
            return [.nan, -.nan, 0, -0.0, .infinity, -.infinity, .leastNonzeroMagnitude, 0.1].randomElement(
                using: &rng)!
        case 1: return Float(bitPattern: 0x7F80_0000 | (UInt32(truncatingIfNeeded: rng.next()) & 0x807F_FFFF) | 1)
        default: return Float(bitPattern: UInt32(truncatingIfNeeded: rng.next()))
        }
    }

    /// A string of exactly `byteCount` UTF-8 bytes, mixing every UTF-8 length class, NUL and the
    /// characters JSON escapes.
    mutating func string(byteCount: Int) -> String {
        let pieces: [String] = [
            "a", "Z", " ", "\u{0}", "\"", "\\", "\n", "\u{1F}", "é", "\u{7FF}", "€", "\u{FFFF}",
            "😂", "\u{10FFFF}", "\u{301}",
        ]
        var text = ""
        var left = byteCount
        while left > 0 {
            let piece = left >= 4 ? pieces.randomElement(using: &rng)! : "x"
            text += piece
            left -= piece.utf8.count
        }
        return text
    }

    // MARK: Values

    /// A value of `kind` whose size prefix is `count`; containers hold small scalars.
    mutating func sized(_ kind: SizedKind, count: Int) -> StandardValue {
        switch kind {
        case .string: return .string(string(byteCount: count))
        case .uint8List: return .uint8List((0..<count).map { _ in UInt8(truncatingIfNeeded: rng.next()) })
        case .int32List: return .int32List((0..<count).map { _ in int32() })
        case .int64List: return .int64List((0..<count).map { _ in int64() })
        case .float32List: return .float32List((0..<count).map { _ in float() })
        case .float64List: return .float64List((0..<count).map { _ in double() })
        case .list: return .list((0..<count).map { _ in scalar() })
        case .map: return .map((0..<count).map { _ in .init(scalar(), scalar()) })
        }
    }

    mutating func scalar() -> StandardValue {
        switch int(0...6) {
        case 0: return .null
        case 1: return .bool(chance(0.5))
        case 2: return .int32(int32())
        case 3: return .int64(int64())
        case 4: return .float64(double())
        case 5: return .string(string(byteCount: int(0...12)))
        default: return .uint8List((0..<int(0...9)).map { _ in UInt8(truncatingIfNeeded: rng.next()) })
        }
    }

    /// A tree of any kinds, at most `maxDepth` lists and maps deep. Raw custom values only when
    /// `custom` (the Standard codec cannot read them back without an extension).
    mutating func value(maxDepth: Int = 4, custom: Bool = false) -> StandardValue {
        let containers = maxDepth > 0
        switch int(0...(containers ? 16 : 13)) {
        case 0...6: return scalar()
        case 7: return sized(.string, count: treeSize(maximumShort: 20))
        case 8: return sized(.uint8List, count: treeSize(maximumShort: 40))
        case 9: return sized(.int32List, count: treeSize(maximumShort: 6))
        case 10: return sized(.int64List, count: treeSize(maximumShort: 6))
        case 11: return sized(.float32List, count: treeSize(maximumShort: 6))
        case 12: return sized(.float64List, count: treeSize(maximumShort: 6))
        case 13:
            guard custom else { return .float64(double()) }
            let payload = (0..<int(0...6)).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
            return .custom(CustomValue(RawCustomValue(tag: UInt8(int(128...255)), payload: payload)))
        case 14, 15:
            return .list((0..<int(0...5)).map { _ in value(maxDepth: maxDepth - 1, custom: custom) })
        default:
            return .map(
                (0..<int(0...4)).map { _ in
                    .init(value(maxDepth: maxDepth - 1, custom: custom), value(maxDepth: maxDepth - 1, custom: custom))
                })
        }
    }

    /// A chain of exactly `depth` lists and maps (a map's deeper value is its key or its value),
    /// with siblings at random levels and a random leaf at the bottom.
    mutating func chain(depth: Int) -> StandardValue {
        var value = chance(0.5) ? sized(.float32List, count: int(0...3)) : scalar()
        for _ in 0..<depth {
            switch int(0...3) {
            case 0: value = .list([value])
            case 1: value = .list([scalar(), value, scalar()])
            case 2: value = .map([.init(scalar(), value)])
            default: value = .map([.init(value, scalar()), .init(scalar(), scalar())])
            }
        }
        return value
    }

    /// Arbitrary bytes, `0...maximumCount` of them.
    mutating func bytes(maximumCount: Int) -> [UInt8] {
        (0..<int(0...maximumCount)).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
    }

    /// `bytes` changed the way a faulty or hostile peer changes a message: bits flipped, bytes
    /// overwritten with interesting values, inserted, removed, or the message cut short.
    mutating func mutated(_ bytes: [UInt8]) -> [UInt8] {
        var out = bytes
        for _ in 0...int(0...3) {
            switch int(0...4) {
            case 0 where !out.isEmpty:
                out[int(0...out.count - 1)] ^= UInt8(1) << UInt8(int(0...7))
            case 1 where !out.isEmpty:
                out[int(0...out.count - 1)] = [0x00, 0x7F, 0x80, 0xFE, 0xFF, 0x0C, 0x0D, 0x22, 0x5C].randomElement(
                    using: &rng)!
            case 2:
                out.insert(UInt8(truncatingIfNeeded: rng.next()), at: int(0...out.count))
            case 3 where !out.isEmpty:
                out.remove(at: int(0...out.count - 1))
            default:
                out = Array(out.prefix(int(0...out.count)))
            }
        }
        return out
    }
}

import ChannelBridgeCodec
import ChannelBridgeTestSupport
import Testing

enum ValueGenerator {
    static func double(_ rng: inout SeededGenerator) -> Double {
        switch Int.random(in: 0..<6, using: &rng) {
        case 0:
            return [.nan, -0.0, .infinity, -.infinity, .leastNonzeroMagnitude, .greatestFiniteMagnitude].randomElement(
                using: &rng)!
        case 1: return Double(bitPattern: rng.next())
        default: return Double.random(in: -1e6...1e6, using: &rng)
        }
    }

    static func string(_ rng: inout SeededGenerator) -> String {
        let alphabet: [Character] = ["a", "Z", "0", " ", "é", "€", "😂", "\u{0}", "\"", "\n", "日"]
        return String((0..<Int.random(in: 0..<12, using: &rng)).map { _ in alphabet.randomElement(using: &rng)! })
    }

    static func value(_ rng: inout SeededGenerator, depth: Int = 0) -> StandardValue {
        let kinds = depth > 3 ? 12 : 14
        switch Int.random(in: 0..<kinds, using: &rng) {
        case 0: return .null
        case 1: return .bool(Bool.random(using: &rng))
        case 2: return .int32(Int32(truncatingIfNeeded: rng.next()))
        case 3: return .int64(Int64(bitPattern: rng.next()))
        case 4: return .float64(double(&rng))
        case 5: return .string(string(&rng))
        case 6:
            return .uint8List(
                (0..<Int.random(in: 0..<300, using: &rng)).map { _ in UInt8.random(in: 0...255, using: &rng) })
        case 7:
            return .int32List(
                (0..<Int.random(in: 0..<5, using: &rng)).map { _ in Int32(truncatingIfNeeded: rng.next()) })
        case 8: return .int64List((0..<Int.random(in: 0..<5, using: &rng)).map { _ in Int64(bitPattern: rng.next()) })
        case 9: return .float64List((0..<Int.random(in: 0..<5, using: &rng)).map { _ in double(&rng) })
        case 10:
            return .float32List(
                (0..<Int.random(in: 0..<5, using: &rng)).map { _ in
                    Float(bitPattern: UInt32(truncatingIfNeeded: rng.next()))
                })
        case 11: return .custom(CustomValue(RawCustomValue(tag: 128, payload: [])))
        case 12: return .list((0..<Int.random(in: 0..<6, using: &rng)).map { _ in value(&rng, depth: depth + 1) })
        default:
            return .map(
                (0..<Int.random(in: 0..<6, using: &rng)).map { _ in
                    .init(value(&rng, depth: depth + 1), value(&rng, depth: depth + 1))
                })
        }
    }

    /// Raw custom values only round-trip through a codec that knows their length; replace them.
    static func withoutCustom(_ value: StandardValue) -> StandardValue {
        switch value {
        case .custom: return .null
        case .list(let elements): return .list(elements.map(withoutCustom))
        case .map(let entries): return .map(entries.map { .init(withoutCustom($0.key), withoutCustom($0.value)) })
        default: return value
        }
    }
}

@Suite struct RoundTripPropertyTests {
    @Test func standardCodecRoundTripsGeneratedValues() throws {
        var rng = SeededGenerator(seed: 0xC0FFEE)
        let codec = StandardMessageCodec()
        for _ in 0..<3_000 {
            let value = ValueGenerator.withoutCustom(ValueGenerator.value(&rng))
            let bytes = try codec.encode(value)
            #expect(try codec.decode(bytes) == value)
            // Every strict prefix is rejected, never misread and never a crash.
            if bytes.count > 1 {
                let cut = Int.random(in: 1..<bytes.count, using: &rng)
                #expect(codecError { () throws(CodecError) in try codec.decode(Array(bytes.prefix(cut))) } != nil)
            }
        }
    }

    @Test func methodCodecRoundTripsGeneratedCalls() throws {
        var rng = SeededGenerator(seed: 42)
        let codec = StandardMethodCodec()
        for _ in 0..<1_000 {
            let args = ValueGenerator.withoutCustom(ValueGenerator.value(&rng))
            let call = MethodCall(ValueGenerator.string(&rng), arguments: args)
            #expect(try codec.decodeMethodCall(try codec.encodeMethodCall(call)) == call)
            let error = MethodError(
                code: ValueGenerator.string(&rng), message: Bool.random(using: &rng) ? "m" : nil,
                details: args, stacktrace: Bool.random(using: &rng) ? "s" : nil)
            #expect(try codec.decodeEnvelope(try codec.encodeErrorEnvelope(error)) == .error(error))
            #expect(try codec.decodeEnvelope(try codec.encodeSuccessEnvelope(args)) == .success(args))
        }
    }

    @Test func tvnRoundTripsGeneratedValues() throws {
        var rng = SeededGenerator(seed: 7)
        for _ in 0..<2_000 {
            // Every bit pattern survives text, NaN payloads included ("NaN:<hex>").
            let value = ValueGenerator.value(&rng)
            #expect(try TypedValueNotation.parse(TypedValueNotation.canonicalText(value)) == value)
        }
    }

    @Test func randomBytesNeverCrashTheDecoders() {
        var rng = SeededGenerator(seed: 99)
        let standard = StandardMessageCodec()
        let method = StandardMethodCodec()
        for _ in 0..<20_000 {
            let bytes = (0..<Int.random(in: 0..<24, using: &rng)).map { _ in UInt8.random(in: 0...15, using: &rng) }
            _ = try? standard.decode(bytes)
            _ = try? method.decodeEnvelope(bytes)
            _ = try? method.decodeMethodCall(bytes)
            _ = try? JSONMessageCodec().decode(bytes)
        }
    }
}

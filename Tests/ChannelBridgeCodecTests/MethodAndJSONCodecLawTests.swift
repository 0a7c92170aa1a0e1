import ChannelBridgeBytes
import ChannelBridgeCodec
import ChannelBridgeTestSupport
import Testing

/// The method codecs' and the JSON codecs' laws over generated values: calls and envelopes round
/// trip, segmented encodings are the same bytes, JSON gives back exactly its own view of a value
/// (codec.md §7.1) or refuses it as `unencodable`, and any bytes decode or fail at an offset.
@Suite struct MethodAndJSONCodecLawTests {
    @Test(arguments: [false, true])
    func callsAndEnvelopesRoundTrip(json: Bool) throws {
        var generator = LawGenerator(seed: json ? 0x3E7D_0001 : 0x3E7D_0002)
        let codec: any MethodCodec = json ? JSONMethodCodec() : StandardMethodCodec()
        for _ in 0..<800 {
            var value = generator.value(maxDepth: 4)
            if json { value = Self.jsonEncodable(value) }
            let back = json ? Self.jsonView(value) : value
            let name = generator.string(byteCount: generator.int(0...20))
            let call = MethodCall(name, arguments: value)
            #expect(try codec.decodeMethodCall(try codec.encodeMethodCall(call)) == MethodCall(name, arguments: back))
            #expect(try codec.decodeEnvelope(try codec.encodeSuccessEnvelope(value)) == .success(back))
            let error = MethodError(
                code: generator.string(byteCount: generator.int(0...8)),
                message: generator.chance(0.5) ? generator.string(byteCount: 5) : nil, details: value,
                stacktrace: generator.chance(0.5) ? generator.string(byteCount: 30) : nil)
            var expected = error
            expected.details = back
            for includingStacktrace in [false, true] {
                var withoutTrace = expected
                if !includingStacktrace { withoutTrace.stacktrace = nil }
                let bytes = try codec.encodeErrorEnvelope(error, includingStacktrace: includingStacktrace)
                #expect(try codec.decodeEnvelope(bytes) == .error(withoutTrace))
            }
        }
    }

    /// Segmented encodings (large byte lists kept as their own arrays) are the plain bytes, cut.
    @Test func segmentsJoinToTheSameBytes() throws {
        var generator = LawGenerator(seed: 0x3E7D_0003)
        let codec = StandardMethodCodec()
        for _ in 0..<40 {
            let big = generator.sized(.uint8List, count: generator.size(.long))
            let value: StandardValue = generator.chance(0.5) ? big : .list([generator.value(maxDepth: 2), big, big])
            let call = MethodCall("m", arguments: value)
            let segments = try codec.encodeMethodCallSegments(call)
            #expect(segments.head + segments.segments.joined() == (try codec.encodeMethodCall(call)))
            #expect(!segments.isContiguous)
            let success = try codec.encodeSuccessEnvelopeSegments(value)
            #expect(success.head + success.segments.joined() == (try codec.encodeSuccessEnvelope(value)))
        }
    }

    @Test func jsonMessagesGiveBackTheirJSONViewOrAreUnencodable() throws {
        var generator = LawGenerator(seed: 0x3E7D_0004)
        let codec = JSONMessageCodec()
        for _ in 0..<2_000 {
            let raw = generator.value(maxDepth: 4, custom: generator.chance(0.1))
            let value = generator.chance(0.5) ? Self.jsonEncodable(raw) : raw
            if Self.isJSONEncodable(value) {
                let bytes = try codec.encode(value)
                let decoded = try codec.decode(bytes)
                #expect(decoded == Self.jsonView(value), "\(value)")
                #expect(try codec.encode(decoded) == bytes)
            } else {
                #expect(codecError { () throws(CodecError) in try codec.encode(value) }?.code == .unencodable)
            }
        }
    }

    @Test func anyBytesDecodeOrFailAtAnOffsetInside() throws {
        var generator = LawGenerator(seed: 0x3E7D_0005)
        let message = JSONMessageCodec()
        let method = JSONMethodCodec()
        let alphabet =
            Array(#"{}[]:,"\ -+.0123456789eEtrufalsn"#.utf8) + [0x09, 0x0A, 0xC3, 0xA9, 0xED, 0xA0, 0x80, 0x00]
        for round in 0..<6_000 {
            let bytes: [UInt8]
            if round % 3 == 0 {
                bytes = (0..<generator.int(0...24)).map { _ in alphabet.randomElement(using: &generator.rng)! }
            } else {
                let value = Self.jsonEncodable(generator.value(maxDepth: 3))
                bytes = generator.mutated(
                    round % 3 == 1
                        ? try message.encode(value)
                        : try method.encodeMethodCall(MethodCall("m", arguments: value)))
            }
            let codes: [CodecError.Code] = [.invalidJSON, .nestingTooDeep]
            check(bytes, codes: codes) { () throws(CodecError) in
                let value = try message.decode(bytes)
                #expect(try message.decode(try message.encode(value)) == value)
            }
            check(bytes, codes: codes + [.invalidMethodCall]) { () throws(CodecError) in
                let call = try method.decodeMethodCall(bytes)
                #expect(try method.decodeMethodCall(try method.encodeMethodCall(call)) == call)
            }
            check(bytes, codes: codes + [.invalidEnvelope]) { () throws(CodecError) in
                _ = try method.decodeEnvelope(bytes)
            }
        }
        // Numbers past the float64 range are refused where they stand.
        let error = codecError { () throws(CodecError) in try message.decode(Array(#"[1, -1e400]"#.utf8)) }
        #expect(error?.code == .invalidJSON)
        #expect(error?.offset == 4)
    }

    // MARK: JSON's view of values

    /// `value` with what JSON cannot carry replaced: keys become strings, non-finite floats 0.5,
    /// custom values null.
    static func jsonEncodable(_ value: StandardValue) -> StandardValue {
        func finite(_ x: Double) -> Double { x.isFinite ? x : 0.5 }
        switch value {
        case .float64(let x): return .float64(finite(x))
        case .float64List(let xs): return .float64List(xs.map(finite))
        case .float32List(let xs): return .float32List(xs.map { $0.isFinite ? $0 : 0.5 })
        case .custom: return .null
        case .list(let elements): return .list(elements.map(jsonEncodable))
        case .map(let entries):
            return .map(
                entries.map { entry in
                    let key: StandardValue
                    if case .string = entry.key {
                        key = entry.key
                    } else {
                        key = .string(TypedValueNotation.canonicalText(entry.key))
                    }
                    return .init(key, jsonEncodable(entry.value))
                })
        default: return value
        }
    }

    static func isJSONEncodable(_ value: StandardValue) -> Bool {
        switch value {
        case .float64(let x): return x.isFinite
        case .float64List(let xs): return xs.allSatisfy(\.isFinite)
        case .float32List(let xs): return xs.allSatisfy(\.isFinite)
        case .custom: return false
        case .list(let elements): return elements.allSatisfy(isJSONEncodable)
        case .map(let entries):
            return entries.allSatisfy { entry in
                guard case .string = entry.key else { return false }
                return isJSONEncodable(entry.value)
            }
        default: return true
        }
    }

    /// What the JSON codec gives back for an encodable value: typed lists as lists, every integer
    /// as int32 when it fits, float32 elements widened.
    static func jsonView(_ value: StandardValue) -> StandardValue {
        switch value {
        case .int64(let v): return .int(v)
        case .uint8List(let v): return .list(v.map { .int32(Int32($0)) })
        case .int32List(let v): return .list(v.map { .int32($0) })
        case .int64List(let v): return .list(v.map { .int($0) })
        case .float32List(let v): return .list(v.map { .float64(Double($0)) })
        case .float64List(let v): return .list(v.map { .float64($0) })
        case .list(let elements): return .list(elements.map(jsonView))
        case .map(let entries): return .map(entries.map { .init($0.key, jsonView($0.value)) })
        default: return value
        }
    }
}

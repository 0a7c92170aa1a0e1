import ChannelBridgeCodec
import ChannelBridgeTestSupport
import Testing

/// The Standard codec's laws over generated values (codec.md): decoding inverts encoding for every
/// kind and size form, encoding is canonical, the forms a writer may choose all read the same, and
/// any other bytes are refused with a typed error at an offset inside them.
@Suite struct StandardCodecLawTests {
    let codec = StandardMessageCodec()

    @Test(arguments: LawGenerator.SizedKind.allCases, LawGenerator.SizeForm.allCases)
    func everyKindRoundTripsInEverySizeForm(kind: LawGenerator.SizedKind, form: LawGenerator.SizeForm) throws {
        var generator = LawGenerator(seed: 0x5EED_0001)
        let runs = form == .long ? 2 : 12
        for _ in 0..<runs {
            let count = generator.size(form)
            let value = generator.sized(kind, count: count)
            let bytes = try codec.encode(value)
            // The size right after the type byte is written in the shortest form.
            let marker = bytes[1]
            switch form {
            case .short: #expect(Int(marker) == count)
            case .medium: #expect(marker == 0xFE && Int(bytes[2]) | Int(bytes[3]) << 8 == count)
            case .long: #expect(marker == 0xFF)
            }
            #expect(try codec.decode(bytes) == value, "\(kind) with \(count) elements")
            #expect(try codec.encode(try codec.decode(bytes)) == bytes)
        }
    }

    @Test func generatedTreesRoundTripAndEncodeCanonically() throws {
        var generator = LawGenerator(seed: 0x5EED_0002)
        for _ in 0..<3_000 {
            let value = generator.value(maxDepth: 5)
            let bytes = try codec.encode(value)
            let decoded = try codec.decode(bytes)
            #expect(decoded == value)
            #expect(try codec.encode(decoded) == bytes)
        }
    }

    @Test func scalarsRoundTripBitForBit() throws {
        var generator = LawGenerator(seed: 0x5EED_0003)
        for _ in 0..<5_000 {
            let value: StandardValue
            switch generator.int(0...3) {
            case 0: value = .float64(generator.double())
            case 1: value = .float32List([generator.float()])
            case 2: value = .int32(generator.int32())
            default: value = .int64(generator.int64())
            }
            let back = try codec.decode(try codec.encode(value))
            switch (back, value) {
            case (.float64(let a), .float64(let b)): #expect(a.bitPattern == b.bitPattern)
            case (.float32List(let a), .float32List(let b)): #expect(a.map(\.bitPattern) == b.map(\.bitPattern))
            default: #expect(back == value)
            }
        }
    }

    /// Sizes in a longer form than needed and nonzero padding are what other writers may send
    /// (codec.md §6.4): they decode to the same value, which then encodes canonically.
    @Test func longerSizeFormsAndPaddingContentReadTheSame() throws {
        var generator = LawGenerator(seed: 0x5EED_0004)
        for _ in 0..<2_000 {
            let value = generator.value(maxDepth: 4)
            var writer = LongFormWriter(rng: SeededGenerator(seed: generator.rng.next()))
            writer.write(value)
            #expect(try codec.decode(writer.bytes) == value)
            #expect(try codec.encode(try codec.decode(writer.bytes)) == (try codec.encode(value)))
        }
    }

    /// A message is self-delimiting: no non-empty proper prefix decodes (zero bytes are null), and
    /// bytes after it are named at the offset where the value ended.
    @Test func prefixesAreTruncatedAndSuffixesAreTrailing() throws {
        var generator = LawGenerator(seed: 0x5EED_0005)
        for _ in 0..<2_000 {
            let bytes = try codec.encode(generator.value(maxDepth: 4))
            let cut = generator.int(1...bytes.count) - 1
            if cut > 0 {
                let error = codecError { () throws(CodecError) in try codec.decode(Array(bytes.prefix(cut))) }
                #expect(
                    error?.code == .truncated || error?.code == .sizeTooLarge,
                    "prefix of \(cut) of \(Hex.encode(bytes))")
                #expect(error.flatMap(\.offset).map { (0...cut).contains($0) } == true)
            }
            let extra = [UInt8](repeating: 0, count: generator.int(1...3))
            let error = codecError { () throws(CodecError) in try codec.decode(bytes + extra) }
            #expect(error?.code == .trailingBytes)
            #expect(error?.offset == bytes.count)
        }
    }

    /// Random and mutated bytes: each either decodes, and then encodes to bytes that decode to the
    /// same value, or fails with a decoding code at an offset inside the input.
    @Test func anyBytesDecodeOrFailAtAnOffsetInside() throws {
        var generator = LawGenerator(seed: 0x5EED_0006)
        let method = StandardMethodCodec()
        for round in 0..<12_000 {
            let bytes =
                round % 3 == 0
                ? generator.bytes(maximumCount: 40)
                : generator.mutated(try codec.encode(generator.value(maxDepth: 3)))
            check(bytes, codes: Self.messageCodes) { () throws(CodecError) in
                let value = try codec.decode(bytes)
                #expect(try codec.decode(try codec.encode(value)) == value)
            }
            check(bytes, codes: Self.messageCodes + [.invalidMethodCall]) { () throws(CodecError) in
                let call = try method.decodeMethodCall(bytes)
                #expect(try method.decodeMethodCall(try method.encodeMethodCall(call)) == call)
            }
            check(bytes, codes: Self.messageCodes + [.invalidEnvelope]) { () throws(CodecError) in
                _ = try method.decodeEnvelope(bytes)
            }
        }
    }

    static let messageCodes: [CodecError.Code] = [
        .unknownType, .truncated, .trailingBytes, .invalidUTF8, .sizeTooLarge,
        .nestingTooDeep,
    ]
}

/// Runs a decode of `bytes`; a failure must carry one of `codes` and an offset in `0...bytes.count`.
func check(
    _ bytes: [UInt8], codes: [CodecError.Code], sourceLocation: SourceLocation = #_sourceLocation,
    _ decode: () throws(CodecError) -> Void
) {
    do {
        try decode()
    } catch {
        // Checked by hand and recorded only when broken: these run tens of thousands of times.
        guard codes.contains(error.code), let offset = error.offset, (0...bytes.count).contains(offset) else {
            Issue.record(
                "\(Hex.encode(bytes)): \(error.code) at \(String(describing: error.offset)): \(error)",
                sourceLocation: sourceLocation)
            return
        }
    }
}

/// Writes values the way another valid writer may: each size in a random form at least as long as
/// needed, and padding filled with nonzero bytes. Independent of `StandardWriter` on purpose.
struct LongFormWriter {
    var rng: SeededGenerator
    var bytes: [UInt8] = []

    mutating func size(_ count: Int) {
        let forms = count < 254 ? [1, 3, 5] : count <= 0xFFFF ? [3, 5] : [5]
        switch forms.randomElement(using: &rng)! {
        case 1: bytes.append(UInt8(count))
        case 3: bytes.append(0xFE); little(UInt16(count))
        default: bytes.append(0xFF); little(UInt32(count))
        }
    }

    mutating func little<T: FixedWidthInteger>(_ value: T) {
        withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
    }

    mutating func pad(_ alignment: Int) {
        while bytes.count % alignment != 0 { bytes.append(0xAB) }
    }

    mutating func write(_ value: StandardValue) {
        switch value {
        case .null: bytes.append(0)
        case .bool(let flag): bytes.append(flag ? 1 : 2)
        case .int32(let v): bytes.append(3); little(v)
        case .int64(let v): bytes.append(4); little(v)
        case .float64(let v): bytes.append(6); pad(8); little(v.bitPattern)
        case .string(let s): bytes.append(7); size(s.utf8.count); bytes += Array(s.utf8)
        case .uint8List(let v): bytes.append(8); size(v.count); bytes += v
        case .int32List(let v): bytes.append(9); size(v.count); pad(4); v.forEach { little($0) }
        case .int64List(let v): bytes.append(10); size(v.count); pad(8); v.forEach { little($0) }
        case .float64List(let v): bytes.append(11); size(v.count); pad(8); v.forEach { little($0.bitPattern) }
        case .float32List(let v): bytes.append(14); size(v.count); pad(4); v.forEach { little($0.bitPattern) }
        case .list(let v): bytes.append(12); size(v.count); v.forEach { write($0) }
        case .map(let v):
            bytes.append(13); size(v.count);
            v.forEach {
                write($0.key); write($0.value)
            }
        case .custom: preconditionFailure("the law tests write no custom values")
        }
    }
}

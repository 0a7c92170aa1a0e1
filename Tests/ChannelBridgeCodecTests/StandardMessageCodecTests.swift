import ChannelBridgeCodec
import ChannelBridgeTestSupport
import Testing

@Suite struct StandardMessageCodecTests {
    let codec = StandardMessageCodec()

    @Test func scalarsEncodeToFlutterBytes() throws {
        #expect(try codec.encode(.null) == [0])
        #expect(try codec.encode(true) == [1])
        #expect(try codec.encode(.int32(0x1234_5678)) == hex("03 78563412"))
        #expect(try codec.encode(.int64(1)) == hex("04 0100000000000000"))
        #expect(try codec.encode(.float64(1.5)) == hex("06 00000000000000 000000000000f83f"))
        #expect(try codec.encode("abc") == hex("07 03 616263"))
    }

    @Test func integerLiteralPicksWidthLikeDart() {
        #expect(StandardValue(integerLiteral: 2_147_483_647) == .int32(2_147_483_647))
        #expect(StandardValue(integerLiteral: 2_147_483_648) == .int64(2_147_483_648))
        #expect(StandardValue(integerLiteral: -2_147_483_649) == .int64(-2_147_483_649))
        #expect(StandardValue(5) == .int32(5))
    }

    @Test(arguments: [(253, "fd"), (254, "fefe00"), (65535, "feffff"), (65536, "ff00000100")])
    func sizePrefixBoundaries(count: Int, prefix: String) throws {
        let bytes = try codec.encode(.uint8List([UInt8](repeating: 7, count: count)))
        #expect(Array(bytes.prefix(1 + prefix.count / 2)) == [8] + hex(prefix))
        #expect(try codec.decode(bytes) == .uint8List([UInt8](repeating: 7, count: count)))
    }

    @Test func stringSizeIsUTF8ByteCount() throws {
        let bytes = try codec.encode(.string(String(repeating: "é", count: 127)))
        #expect(Array(bytes.prefix(4)) == hex("07 fe fe00"))
    }

    @Test func alignmentCountsFromStartOfMessage() throws {
        // The float64's tag sits at offset 7, so its value starts at 8 with no padding; after "ab" it needs one byte.
        #expect(try codec.encode(["abc", .float64(1.5)]) == hex("0c02 0703616263 06 000000000000f83f"))
        #expect(try codec.encode(["ab", .float64(1.5)]) == hex("0c02 07026162 06 00 000000000000f83f"))
        // Empty typed lists are padded too (every Flutter reader aligns even for count 0).
        #expect(try codec.encode(.int32List([])) == hex("09 00 0000"))
        #expect(try codec.decode(hex("09 00 0000")) == .int32List([]))
        #expect(try codec.encode(.float64List([])) == hex("0b 00 000000000000"))
    }

    @Test func readersAcceptNonCanonicalSizesAndIgnorePaddingContent() throws {
        #expect(try codec.decode(hex("07 fe0300 616263")) == "abc")
        #expect(try codec.decode(hex("07 ff03000000 616263")) == "abc")
        #expect(try codec.decode(hex("06 ffffffffffffff 000000000000f03f")) == .float64(1.0))
    }

    @Test func emptyMessageIsNull() throws {
        #expect(try codec.decode([]) == .null)
    }

    @Test func floatsKeepTheirBits() throws {
        let oddNaN = Double(bitPattern: 0xFFF8_0000_0000_0001)
        let decoded = try codec.decode(try codec.encode(.float64(oddNaN)))
        guard case .float64(let back) = decoded else { Issue.record("not a float64"); return }
        #expect(back.bitPattern == oddNaN.bitPattern)
        #expect(try codec.decode(try codec.encode(.float64(-0.0))) != .float64(0.0))
        #expect(Set<StandardValue>([.float64(.nan), .float64(.nan)]).count == 1)
        #expect(StandardValue.float32List([.nan]) == .float32List([.nan]))
    }

    @Test func mapsKeepPairOrderAndAnyKeys() throws {
        let value: StandardValue = .map([.init(.null, 1), .init(["k"], "v"), .init("b", 2), .init("a", 3)])
        let decoded = try codec.decode(try codec.encode(value))
        #expect(decoded == value)
        #expect(decoded[.null] == 1)
    }

    @Test func legacyLargeIntTagReadsAsString() throws {
        #expect(try codec.decode(hex("05 03 2d6666")) == "-ff")
    }

    /// Strings at and around the length a String holds inline (15 UTF-8 bytes), which the reader
    /// builds in place when they are ASCII: the same text, and bad UTF-8 still refused there.
    @Test func shortStringsDecodeExactlyAroundTheInlineLength() throws {
        for length in 0...40 {
            let ascii = String((0..<length).map { Character(UnicodeScalar(UInt8(0x21 + $0 % 90))) })
            let decoded = try codec.decode([0x07, UInt8(length)] + Array(ascii.utf8))
            #expect(decoded == .string(ascii), "ASCII of \(length) bytes")
            guard length >= 2 else { continue }
            // Non-ASCII of the same length: é is two bytes.
            let accented = String(repeating: "a", count: length - 2) + "é"
            #expect(try codec.decode([0x07, UInt8(length)] + Array(accented.utf8)) == .string(accented))
        }
        // Invalid: a lone continuation byte at every position, so that the reader's ASCII check
        // (a word at a time, the last bytes as an overlapping word) sees it wherever it is.
        for length in 1...40 {
            for position in 0..<length {
                var invalid = [UInt8](repeating: 0x61, count: length)
                invalid[position] = 0x80
                let error = codecError { () throws(CodecError) in try codec.decode([0x07, UInt8(length)] + invalid) }
                #expect(error?.code == .invalidUTF8, "invalid UTF-8 of \(length) bytes at \(position)")
            }
        }
    }
}

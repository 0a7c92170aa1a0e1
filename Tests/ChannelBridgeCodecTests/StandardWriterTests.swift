import ChannelBridgeCodec
import ChannelBridgeTestSupport
import Testing

/// `StandardWriter`'s public methods, as a codec extension calls them: exact bytes, from a writer
/// with no room to start with (so that every write grows it), and value semantics when a writer is
/// copied (its storage is shared until one of the copies writes).
@Suite struct StandardWriterTests {
    @Test func everyMethodWritesItsExactBytes() {
        var writer = StandardWriter(reservingCapacity: 1)
        writer.writeByte(0xAB)
        writer.writeInt32(-2)
        writer.writeInt64(0x0102_0304_0506_0708)
        writer.writeUInt16(0xBEEF)
        writer.writeUInt32(0xDEAD_BEEF)
        writer.writeAlignment(8)  // 19 bytes so far: 5 zeros to 24
        writer.writeFloat64(-0.0)
        writer.writeFloat64(Double(bitPattern: 0x7FF8_0000_0000_0001))  // a NaN payload survives
        writer.writeSize(253)
        writer.writeSize(254)
        writer.writeSize(65_535)
        writer.writeSize(65_536)
        writer.writeBytes([1, 2, 3])  // contiguous
        writer.writeBytes((4..<7).lazy.map { UInt8($0) })  // not contiguous
        writer.writeAlignment(4)  // 58 bytes so far: 2 zeros to 60
        writer.writeBytes([UInt8](repeating: 9, count: 40))  // past the room the writer had
        let expected =
            "ab" + "feffffff" + "0807060504030201" + "efbe" + "efbeadde" + "0000000000"
            + "0000000000000080" + "010000000000f87f" + "fd" + "fefe00" + "feffff" + "ff00000100"
            + "010203" + "040506" + "0000" + String(repeating: "09", count: 40)
        #expect(Hex.encode(writer.bytes) == expected)
    }

    @Test func aCopiedWriterWritesOnItsOwn() throws {
        var first = StandardWriter(reservingCapacity: 8)
        first.writeByte(1)
        var second = first
        second.writeByte(2)
        first.writeByte(3)
        try first.writeValue("a")
        #expect(first.bytes == [1, 3, 7, 1, 0x61])
        #expect(second.bytes == [1, 2])
    }

    /// A value written through `writeValue` by an extension is what the codec encodes for it.
    @Test func writeValueWritesWhatTheCodecEncodes() throws {
        let value: StandardValue = .list([
            "x", .int32(7), .float64(1.5), .uint8List([1, 2]), .map([.init("k", .null)]),
        ])
        var writer = StandardWriter(reservingCapacity: 1)
        // Two bytes first, as a one-element list has (`0c 01`): alignment counts from the
        // writer's first byte, so the float's padding is the same in both.
        writer.writeByte(0xFF)
        writer.writeByte(0xFE)
        try writer.writeValue(value)
        #expect(writer.bytes == [0xFF, 0xFE] + (try StandardMessageCodec().encode(.list([value])).dropFirst(2)))
    }

    /// A string is its size and its UTF-8, however it is held: small (up to 15 bytes), ASCII or
    /// not, or in storage of its own; and it reads back as the same string.
    @Test func aStringIsItsSizeAndItsUTF8AtEveryLength() throws {
        let pieces = ["a", "\u{E9}", "\u{65E5}", "\u{1F600}", "~", "0"]
        for count in 0...20 {
            var string = ""
            var index = 0
            while string.utf8.count < count {
                let piece = pieces[index % pieces.count]
                string += string.utf8.count + piece.utf8.count <= count ? piece : "z"
                index += 1
            }
            let codec = StandardMessageCodec()
            let encoded = try codec.encode(.string(string))
            #expect(encoded == [7, UInt8(count)] + Array(string.utf8), "\(string.debugDescription)")
            #expect(try codec.decode(encoded) == .string(string))
        }
    }
}

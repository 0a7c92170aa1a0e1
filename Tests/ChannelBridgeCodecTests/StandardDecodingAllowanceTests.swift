import ChannelBridgeCodec
import Testing

/// What decoding builds is bounded by the message's size: 6 × its bytes + 2 MiB of memory for
/// all its values, checked when a size is read, before the value is allocated.
@Suite struct StandardDecodingAllowanceTests {
    let codec = StandardMessageCodec()

    /// A list of `count` nulls, in the size form `count` needs.
    static func nullList(_ count: Int) -> [UInt8] {
        var bytes: [UInt8] = [12]
        if count < 254 {
            bytes.append(UInt8(count))
        } else if count <= 0xFFFF {
            bytes += [254, UInt8(count & 0xFF), UInt8(count >> 8)]
        } else {
            bytes.append(255)
            withUnsafeBytes(of: UInt32(count).littleEndian) { bytes += $0 }
        }
        return bytes + [UInt8](repeating: 0, count: count)
    }

    @Test func statedAllowance() {
        #expect(StandardMessageCodec.allowanceBytesPerByte == 6)
        #expect(StandardMessageCodec.allowanceSlack == 2_097_152)
        #expect(StandardMessageCodec.decodingAllowance(forMessageOf: 1_000) == 2_103_152)
    }

    @Test func refusesAMegabyteOfNullsWithTheTypedError() {
        let bytes = Self.nullList(1_000_000)
        #expect(bytes.count == 1_000_006)
        let error = codecError { () throws(CodecError) in try codec.decode(bytes) }
        #expect(error?.code == .decodedTooLarge)
        #expect(error?.offset == 0)
        #expect(
            error?.message == "list of 1000000 elements would take 24000032 bytes of memory, past the decoding "
                + "allowance of this 1000006-byte message: 8097188 bytes (6 × its size + 2097152) for all its values")
    }

    @Test func nullsRightAtTheBound() throws {
        // 116,508 nulls (116,514 bytes) build 32 + 24 × 116,508 = 2,796,224 bytes, the allowance
        // being 6 × 116,514 + 2,097,152 = 2,796,236; one more null takes 24 and allows 6.
        #expect(try codec.decode(Self.nullList(116_508)) == .list(Array(repeating: .null, count: 116_508)))
        let error = codecError { () throws(CodecError) in try codec.decode(Self.nullList(116_509)) }
        #expect(error?.code == .decodedTooLarge)
    }

    @Test func realisticDataDecodes() throws {
        // int32 values are the densest realistic data: 5 bytes each on the wire, 24 in memory.
        let ints = StandardValue.list((0..<1_000_000).map { .int32(Int32($0)) })
        #expect(try codec.decode(codec.encode(ints)) == ints)
        let strings = StandardValue.list((0..<200_000).map { .string("item \($0)") })
        #expect(try codec.decode(codec.encode(strings)) == strings)
        let longStrings = StandardValue.list((0..<20_000).map { .string("a longer item that is on the heap \($0)") })
        #expect(try codec.decode(codec.encode(longStrings)) == longStrings)
        let map = StandardValue.map((0..<100_000).map { StandardValue.MapEntry(.string("k\($0)"), .int32(Int32($0))) })
        #expect(try codec.decode(codec.encode(map)) == map)
        let floats = StandardValue.float64List((0..<100_000).map(Double.init))
        #expect(try codec.decode(codec.encode(floats)) == floats)
    }

    @Test func smallMessagesOfAnyShapeDecode() throws {
        // Up to 64 KiB, the slack covers the densest shapes: nulls, null-to-null entries, lists of
        // one; the size-form boundary vector, 65,536 nulls, too.
        let nulls = StandardValue.list(Array(repeating: .null, count: 65_536))
        #expect(try codec.decode(codec.encode(nulls)) == nulls)
        let entries = StandardValue.map((0..<32_000).map { _ in StandardValue.MapEntry(.null, .null) })
        #expect(try codec.decode(codec.encode(entries)) == entries)
        let singletons = StandardValue.list(Array(repeating: .list([.null]), count: 21_000))
        #expect(try codec.encode(singletons).count <= 65_536)
        #expect(try codec.decode(codec.encode(singletons)) == singletons)
    }

    @Test func mapsAndTypedListsAreCharged() {
        // 100,000 entries of null to null: 2 bytes each, 48 in memory.
        var map: [UInt8] = [13, 255]
        withUnsafeBytes(of: UInt32(100_000).littleEndian) { map += $0 }
        map += [UInt8](repeating: 0, count: 200_000)
        #expect(codecError { () throws(CodecError) in try codec.decode(map) }?.code == .decodedTooLarge)
        // A list of 6-byte lists of four nulls: 24 bytes each in the outer list, within 6 × 6,
        // and 32 + 4 × 24 each of their own, which runs the allowance out at an inner list.
        var nested: [UInt8] = [12, 255]
        withUnsafeBytes(of: UInt32(100_000).littleEndian) { nested += $0 }
        for _ in 0..<100_000 { nested += [12, 4, 0, 0, 0, 0] }
        let error = codecError { () throws(CodecError) in try codec.decode(nested) }
        #expect(error?.code == .decodedTooLarge)
        #expect(error.map { $0.offset! > 6 } == true, "refused at an inner list, once the allowance ran out")
    }

    @Test func methodCallsAreBoundedToo() throws {
        let method = StandardMethodCodec()
        var call = try method.encodeMethodCall(MethodCall("appendToList", arguments: .null))
        call.removeLast()
        call += Self.nullList(1_000_000)
        let error = codecError { () throws(CodecError) in try method.decodeMethodCall(call) }
        #expect(error?.code == .decodedTooLarge)
        #expect(error?.message.contains("\(call.count)-byte message") == true, "\(String(describing: error))")
    }
}

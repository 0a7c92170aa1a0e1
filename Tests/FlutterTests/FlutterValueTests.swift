import ChannelBridgeCodec
import Flutter
import Foundation
import Testing

/// Values as the iOS side writes and sees them.
@Suite struct FlutterValueTests {
    let codec = FlutterStandardMessageCodec.sharedInstance()

    func hex(_ value: Any?) -> String {
        codec.encode(value).map { Hex.encode([UInt8]($0)) } ?? "nil"
    }

    @Test func integersGoOutByTheirStorageSizeAsOnIOS() {
        #expect(hex(5 as Int) == "040500000000000000")
        #expect(hex(Int64(5)) == "040500000000000000")
        #expect(hex(Int32(5)) == "0305000000")
        #expect(hex(Int16(-2)) == "03feffffff")
        #expect(hex(Int8(-1)) == "03ffffffff")
        #expect(hex(UInt8(200)) == "03c8000000")
        #expect(hex(UInt16(65535)) == "03ffff0000")
        // NSNumber keeps an unsigned int in a signed 64-bit number.
        #expect(hex(UInt32(7)) == "040700000000000000")
        #expect(hex(UInt64(7)) == "040700000000000000")
        #expect(hex(NSNumber(value: Int32(-7))) == "03f9ffffff")
        #expect(hex(NSNumber(value: Int64(1) << 40)) == "040000000000010000")
    }

    @Test func everyKindOfNSNumberIsClassifiedWithoutCoreFoundationCalls() {
        // JSONSerialization gives an NSDecimalNumber for -2^63: a float, as on iOS ("d").
        let decimal = FlutterJSONMessageCodec.sharedInstance().decode(Data("[-9223372036854775808]".utf8)) as? [Any]
        #expect(decimal?.first is NSDecimalNumber)
        #expect(hex(decimal?.first) == "06" + "00000000000000" + "000000000000e0c3")
        #expect(hex(NSDecimalNumber(string: "1.5")) == "06" + "00000000000000" + "000000000000f83f")
        // Linux's Core Foundation keeps a small number in 4 bytes whatever it was made from (iOS
        // would say 8 here): NSNumbers are written by the storage they have.
        #expect(hex(NSNumber(value: UInt64(5))) == "0305000000")
        #expect(throws: CodecError.self) { try codec.checkedEncode(NSNumber(value: UInt64.max)) }
    }

    @Test func booleansFloatsStringsAndNulls() {
        #expect(hex(true) == "01")
        #expect(hex(NSNumber(value: false)) == "02")
        #expect(hex(1.5) == "06" + "00000000000000" + "000000000000f83f")
        #expect(hex(Float(0.5)) == "06" + "00000000000000" + "000000000000e03f")
        #expect(hex(NSNumber(value: 2.0)) == "06" + "00000000000000" + "0000000000000040")
        #expect(hex("é") == "0702c3a9")
        #expect(hex(nil) == "nil")
        #expect(hex(NSNull()) == "00")
        #expect(hex(Optional<Int>.none as Any) == "00")
        #expect(hex(Optional(Optional(Int32(1))) as Any) == "0301000000")
    }

    @Test func dataIsAUint8ListAndTypedDataKeepsItsKind() {
        #expect(hex(Data([1, 2, 3])) == "0803010203")
        let ints = FlutterStandardTypedData(int32: [Int32(1), -1].withUnsafeBytes { Data($0) })
        #expect(hex(ints) == "0902000001000000ffffffff")
        let floats = FlutterStandardTypedData(float32: [Float(1)].withUnsafeBytes { Data($0) })
        #expect(hex(floats) == "0e0100000000803f")
        #expect(floats.elementCount == 1 && floats.elementSize == 4 && floats.type == .float32)
    }

    @Test func arraysAndDictionariesOfAnyElementType() {
        #expect(hex([Int32(1), nil, "a"] as [Any?]) == "0c030301000000000701" + "61")
        #expect(hex([1, 2] as [Int]) == "0c0204010000000000000004020000000000000000".dropLast(2))
        #expect(hex(["k": Int32(1)] as [String: Int32]) == "0d0107016b0301000000")
        #expect(hex([nil: "v"] as [String?: String]) == "0d0100070176")
        #expect(hex(NSArray(array: ["x", NSNull()])) == "0c02070178" + "00")
    }

    @Test func decodedIntegersCastToIntInt32AndInt64() throws {
        let int32 = codec.decode(Data([3, 7, 0, 0, 0]))
        #expect(int32 as? Int == 7)
        #expect(int32 as? Int32 == 7)
        #expect(int32 as? Int64 == 7)
        let int64 = codec.decode(Data([4, 0, 0, 0, 0, 1, 0, 0, 0]))
        #expect(int64 as? Int == 1 << 32)
        #expect(int64 as? Int64 == 1 << 32)
        #expect(int64 as? Int32 == nil)
        #expect(codec.decode(Data([1])) as? Bool == true)
        #expect(codec.decode(Data([6, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xF8, 0x3F])) as? Double == 1.5)
        #expect(codec.decode(Data([5, 3]) + Data("-ff".utf8)) as? String == "-ff")
    }

    @Test func decodedContainersHoldNilForNullAndCastLikePigeonsCode() throws {
        // [1 (int64), null, "a"]
        let list = try #require(codec.decode(Data(try Hex.decode("0c03040100000000000000000701" + "61"))) as? [Any?])
        #expect(list.count == 3)
        #expect(list[1] == nil)
        let typed = try #require(codec.decode(Data(try Hex.decode("0c0204" + "0100000000000000" + "00"))) as? [Int64?])
        #expect(typed == [1, nil])
        // {"a": null, null: "z"}
        let map = try #require(codec.decode(Data(try Hex.decode("0d020701610000070" + "17a"))) as? [String?: String?])
        #expect(map["a"] == .some(nil))
        #expect(map[nil] == .some("z"))
        let repeated = try #require(
            codec.decode(Data(try Hex.decode("0d020701610301000000070161030200000" + "0"))) as? [String: Int])
        #expect(repeated == ["a": 1], "the first value of a repeated key stays, as CFDictionaryAddValue keeps it")
    }

    @Test func decodedValuesWriteBackTheSameBytesExceptSmallInt64s() throws {
        for text in [
            "0301000000", "01", "02", "07026869", "0c0203010000000700", "06" + "00000000000000" + "000000000000f83f",
        ] {
            let bytes = Data(try Hex.decode(text))
            #expect(codec.encode(codec.decode(bytes)).map { Hex.encode([UInt8]($0)) } == text)
        }
        // Linux's Core Foundation stores a small 64-bit number in 4 bytes, so a decoded int64
        // that fits in 32 bits is written back as an int32 (iOS keeps the int64).
        #expect(hex(codec.decode(Data(try Hex.decode("040100000000000000")))) == "0301000000")
        #expect(hex(codec.decode(Data(try Hex.decode("040000000001000000")))) == "040000000001000000")
    }

    @Test func unsupportedValuesAreRefusedByTheCheckedEncoder() {
        struct Point { var x: Int }
        #expect(throws: CodecError.self) { try codec.checkedEncode(Point(x: 1)) }
        #expect(throws: CodecError.self) { try codec.checkedEncode([Point(x: 1)]) }
        #expect(throws: CodecError.self) { try codec.checkedEncode(UInt64.max) }
        #expect(throws: CodecError.self) { try codec.checkedEncode(FlutterStandardTypedData(int32: Data([1, 2, 3]))) }
        do {
            _ = try codec.checkedEncode(["a": Point(x: 1)])
        } catch {
            #expect(error.code == .unencodable)
            #expect(error.message.contains("Point"))
        }
    }

    @Test func malformedBytesAreReportedWithTheirOffset() {
        for (text, code) in [
            ("ff", CodecError.Code.unknownType), ("030100", .truncated), ("0301000000ff", .trailingBytes),
            ("0701ff", .invalidUTF8), ("0cffffffffff", .sizeTooLarge), ("0c01" + "80", .unknownType),
        ] {
            #expect(throws: CodecError.self) { try codec.checkedDecode(Data(try! Hex.decode(text))) }
            do {
                _ = try codec.checkedDecode(Data(try Hex.decode(text)))
            } catch {
                #expect(error.code == code, "\(text): \(error)")
            }
        }
        #expect(codec.decode(Data([0xFF])) == nil, "the plain API logs and gives nil")
    }

    @Test func deepNestingIsBoundedNotAStackOverflow() {
        let deep = Data(Array(repeating: UInt8(0x0C), count: 5_000).flatMap { [$0, 1] } + [0])
        #expect(throws: CodecError.self) { try codec.checkedDecode(deep) }
        let limit = Data(Array(repeating: UInt8(0x0C), count: 1_000).flatMap { [$0, 1] } + [0])
        #expect((try? codec.checkedDecode(limit)) != nil)
    }

    /// A map key that is a list or map is an NSArray/NSDictionary, which Foundation on Linux
    /// converts recursively on every access: past 64 levels a peer's key is refused, so writing
    /// the value back (or hashing its keys) cannot exhaust the stack.
    @Test func mapKeysNestAtMostSixtyFourLevels() throws {
        func mapKeyedBy(listsDeep levels: Int) -> Data {
            Data(
                [0x0D, 1] + Array(repeating: [UInt8(0x0C), 1], count: levels).flatMap { $0 } + [0x00, 0x03, 1, 0, 0, 0])
        }
        let atLimit = try codec.checkedDecode(mapKeyedBy(listsDeep: 64))
        #expect(codec.encode(atLimit) == mapKeyedBy(listsDeep: 64))
        let error = try #require(throws: CodecError.self) { try codec.checkedDecode(mapKeyedBy(listsDeep: 65)) }
        #expect(error.code == .nestingTooDeep)
        #expect(error.message == "a map key nests deeper than 64 levels")
        #expect(error.offset == 2 + 2 * 64)
    }
}

import ChannelBridgeChannels
import ChannelBridgeCodec
import ChannelBridgeMessenger
import ChannelBridgeTestSupport
import Flutter
import Foundation
import Synchronization
import Testing

/// `FlutterStandardReader` reads the encoding with ChannelBridge's `StandardReader`: what it
/// reports about malformed bytes is what ChannelBridge's own codec reports, and what a Flutter
/// channel answers a malformed call with.
@Suite struct FlutterStandardReaderTests {
    let codec = FlutterStandardMessageCodec.sharedInstance()

    static func bytes(_ text: String) -> [UInt8] { try! Hex.decode(text.replacingOccurrences(of: " ", with: "")) }

    /// Each fault names what was being read, and the same words and offset come from
    /// ChannelBridge's `StandardMessageCodec`.
    @Test(arguments: [
        ("03 01 00", "truncated int32: needs 4 bytes, 2 left (at byte 1)"),
        ("04 01", "truncated int64: needs 8 bytes, 1 left (at byte 1)"),
        ("06 00 00 00 00 00 00 00 01", "truncated float64: needs 8 bytes, 1 left (at byte 8)"),
        ("06 00 00", "truncated alignment padding: needs 7 bytes, 2 left (at byte 1)"),
        ("07 fe 05", "truncated size: needs 2 bytes, 1 left (at byte 2)"),
        ("0c 02 07 01 61", "truncated value: needs 1 byte, 0 left (at byte 5)"),
        ("0c ff ff ff ff 7f", "list claims 2147483647 elements but only 0 bytes are left (at byte 0)"),
        ("0d 02 01 02", "map claims 2 elements but only 2 bytes are left (at byte 0)"),
        ("09 02 00 00 01 00 00 00", "Int32List claims 2 elements but only 6 bytes are left (at byte 0)"),
        ("09 01 00 00 01 00", "Int32List claims 1 elements but only 2 bytes are left (at byte 0)"),
        ("0b 01", "Float64List claims 1 elements but only 0 bytes are left (at byte 0)"),
        ("08 03 01", "Uint8List claims 3 elements but only 1 bytes are left (at byte 0)"),
        ("0f", "unknown type 15 (at byte 0)"),
    ])
    func aMalformedValueIsNamedAsChannelBridgesCodecNamesIt(hex: String, expected: String) {
        let bytes = Self.bytes(hex)
        let flutter = #expect(throws: CodecError.self) { try codec.checkedDecode(Data(bytes)) }
        #expect(flutter?.description == expected)
        let channelBridge = #expect(throws: CodecError.self) { try StandardMessageCodec().decode(bytes) }
        #expect(channelBridge?.description == expected)
    }

    /// A string's faults: invalid UTF-8 is named at its first invalid byte; a count past the end
    /// at the string's size (ChannelBridge's codec names the type byte), as `readUTF8()` does.
    @Test func aStringsFaultsNameTheirByte() {
        let invalid = #expect(throws: CodecError.self) { try codec.checkedDecode(Data(Self.bytes("07 03 61 62 ff"))) }
        #expect(invalid?.description == "string is not valid UTF-8 (at byte 4)")
        let long = #expect(throws: CodecError.self) { try codec.checkedDecode(Data(Self.bytes("0c 01 07 05 61"))) }
        #expect(long?.description == "string claims 5 bytes but only 1 are left (at byte 3)")
    }

    /// The primitives a subclass reads its custom values with: every size form, padding counted
    /// from the first byte, and past the end zeros and the first fault, kept.
    @Test func thePrimitivesReadTheEncodingsForms() {
        let reader = FlutterStandardReader(data: Data(Self.bytes("05 fe 2c 01 ff 70 11 01 00 00 03 61 62 63 aa bb")))
        #expect(reader.readSize() == 5)
        #expect(reader.readSize() == 300)
        #expect(reader.readSize() == 70_000)
        reader.readAlignment(2)
        #expect(reader.readUTF8() == "abc")
        #expect(reader.readData(1) == Data([0xAA]))
        var word: UInt32 = 0xFFFF_FFFF
        reader.readBytes(&word, length: 4)
        #expect(word == 0)
        #expect(reader.readByte() == 0)
        #expect(!reader.hasMore())
        let fault = #expect(throws: CodecError.self) {
            try FlutterStandardMessageCodec(readerWriter: PrimitiveReaderWriter()).checkedDecode(
                Data(Self.bytes("80 01 aa bb")))
        }
        #expect(fault?.description == "truncated bytes: needs 4 bytes, 2 left (at byte 2)")
    }

    /// A malformed call to a `FlutterMethodChannel` is answered `malformed` with that text.
    @Test func aChannelAnswersAMalformedCallWithTheReadersWords() async throws {
        let session = EngineSession()
        defer { session.close() }
        let name = uniqueChannel("truncated")
        let reached = Atomic<Bool>(false)
        FlutterMethodChannel(name: name, binaryMessenger: session.engine).setMethodCallHandler { _, result in
            reached.store(true, ordering: .relaxed)
            result(nil)
        }
        try await withHangGuard {
            let call: [UInt8] = [0x07, 0x01, 0x6D, 0x03, 0x01, 0x00]
            let reply = try #require(try await session.client.send(onChannel: name, message: call))
            guard case .error(let error) = try StandardMethodCodec().decodeEnvelope(reply) else {
                Issue.record("not an error envelope")
                return
            }
            #expect(error.code == "malformed")
            #expect(error.message == "truncated int32: needs 4 bytes, 2 left (at byte 4)")
            let handlerRan = reached.load(ordering: .relaxed)
            #expect(!handlerRan)
        }
    }
}

/// Reads custom type 128 as a size and four raw bytes.
private final class PrimitiveReader: FlutterStandardReader {
    override func readValue(ofType type: UInt8) -> Any? {
        guard type == 128 else { return super.readValue(ofType: type) }
        _ = readSize()
        var word: UInt32 = 0
        readBytes(&word, length: 4)
        return word
    }
}

private final class PrimitiveReaderWriter: FlutterStandardReaderWriter {
    override func reader(with data: Data) -> FlutterStandardReader { PrimitiveReader(data: data) }
}

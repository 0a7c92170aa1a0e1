import ChannelBridgeCodec
import Flutter
import Foundation
import Testing

/// The JSON, string and binary codecs, as iOS's write and read.
@Suite struct FlutterCodecTests {
    func text(_ data: Data?) -> String? {
        data.map { String(decoding: $0, as: UTF8.self) }
    }

    @Test func jsonIsWhatJSONSerializationWritesOnIOS() {
        let codec = FlutterJSONMessageCodec.sharedInstance()
        #expect(
            text(codec.encode(["a/b", 1.0, 1.5, true, NSNull(), Int64(1) << 40] as [Any]))
                == #"["a\/b",1,1.5,true,null,1099511627776]"#)
        #expect(text(codec.encode("top level")) == #""top level""#)
        #expect(text(codec.encode(Int32(3))) == "3")
        #expect(codec.encode(nil) == nil)
        #expect(text(codec.encode(["k": [nil, "v"]] as [String: [String?]])) == #"{"k":[null,"v"]}"#)
        #expect(throws: CodecError.self) { try codec.checkedEncode([1: "not a string key"] as [Int: String]) }
        #expect(throws: CodecError.self) { try codec.checkedEncode(Double.nan) }
    }

    @Test func jsonReadsScalarsAtTheTopAndNullAsNil() throws {
        let codec = FlutterJSONMessageCodec.sharedInstance()
        #expect(codec.decode(Data("42".utf8)) as? Int == 42)
        #expect(codec.decode(Data(#""s""#.utf8)) as? String == "s")
        #expect(codec.decode(Data("null".utf8)) == nil)
        #expect(codec.decode(Data()) == nil)
        let map = try #require(codec.decode(Data(#"{"a":[1,null]}"#.utf8)) as? [String: Any])
        #expect((map["a"] as? [Any])?.last is NSNull)
        #expect(throws: CodecError.self) { try codec.checkedDecode(Data("{".utf8)) }
    }

    @Test func jsonMethodCodecEnvelopes() throws {
        let codec = FlutterJSONMethodCodec.sharedInstance()
        #expect(text(codec.encodeSuccessEnvelope(nil)) == "[null]")
        #expect(
            text(codec.encodeErrorEnvelope(FlutterError(code: "E", message: nil, details: ["x": 1])))
                == #"["E",null,{"x":1}]"#)
        let call = codec.decodeMethodCall(Data(#"{"method":"m","args":{"k":"v"}}"#.utf8))
        #expect(call.method == "m" && (call.arguments as? [String: String]) == ["k": "v"])
        let round = codec.decodeMethodCall(codec.encode(FlutterMethodCall(methodName: "exit", arguments: nil)))
        #expect(round.method == "exit" && round.arguments == nil)
        #expect(codec.decodeEnvelope(Data("[1.5]".utf8)) as? Double == 1.5)
        let error = try #require(codec.decodeEnvelope(Data(#"["E","m",null]"#.utf8)) as? FlutterError)
        #expect(error.code == "E" && error.message == "m" && error.details == nil)
        #expect(throws: CodecError.self) { try codec.checkedDecodeEnvelope(Data("[1,2]".utf8)) }
    }

    @Test func stringAndBinaryCodecs() {
        let strings = FlutterStringCodec.sharedInstance()
        #expect(strings.encode("héllo") == Data("héllo".utf8))
        #expect(strings.decode(Data("héllo".utf8)) as? String == "héllo")
        #expect(strings.decode(Data([0xFF])) == nil, "not UTF-8, as iOS's initWithData gives nil")
        #expect(strings.encode(nil) == nil)
        let binary = FlutterBinaryCodec.sharedInstance()
        #expect(binary.encode(Data([1, 2])) == Data([1, 2]))
        #expect(binary.decode(Data([3])) as? Data == Data([3]))
        #expect(throws: CodecError.self) { try binary.checkedEncode("not bytes") }
        #expect(FlutterStandardMessageCodec.sharedInstance() === FlutterStandardMessageCodec.sharedInstance())
    }

    /// A reader/writer pair in Pigeon's shape: the overrides see custom values at any depth.
    final class PointReader: FlutterStandardReader {
        override func readValue(ofType type: UInt8) -> Any? {
            guard type == 200 else { return super.readValue(ofType: type) }
            let xy = readValue() as! [Any?]
            return Point(x: xy[0] as! Int64, y: xy[1] as! Int64)
        }
    }

    final class PointWriter: FlutterStandardWriter {
        override func writeValue(_ value: Any) {
            if let point = value as? Point {
                writeByte(200)
                super.writeValue([point.x, point.y])
            } else {
                super.writeValue(value)
            }
        }
    }

    final class PointReaderWriter: FlutterStandardReaderWriter {
        override func reader(with data: Data) -> FlutterStandardReader { PointReader(data: data) }
        override func writer(with data: NSMutableData) -> FlutterStandardWriter { PointWriter(data: data) }
    }

    struct Point: Hashable {
        var x: Int64
        var y: Int64
    }

    @Test func customTypesThroughSubclassesAtAnyDepth() throws {
        let codec = FlutterStandardMessageCodec(readerWriter: PointReaderWriter())
        let value: [String: Any?] = ["p": [Point(x: 1, y: 2), nil] as [Any?]]
        let bytes = try #require(codec.encode(value))
        #expect(
            Hex.encode([UInt8](bytes)) == "0d01" + "0701" + "70" + "0c02" + "c8" + "0c02" + "04" + "0100000000000000"
                + "04" + "0200000000000000" + "00")
        let decoded = try #require(codec.decode(bytes) as? [String: [Point?]])
        #expect(decoded == ["p": [Point(x: 1, y: 2), nil]])
        // The plain codec does not know type 200.
        #expect(throws: CodecError.self) { try FlutterStandardMessageCodec.sharedInstance().checkedDecode(bytes) }
        // As a map key too.
        let keyedBytes: Data? = codec.encode([Point(x: 3, y: 4): "at"])
        let keyed = try #require(codec.decode(keyedBytes) as? [Point: String])
        #expect(keyed == [Point(x: 3, y: 4): "at"])
    }
}

import ChannelBridgeCodec
import ChannelBridgeTestSupport
import Testing

struct Point: CustomStandardValue {
    var x: Int32
    var y: Int32
    var customTag: UInt8 { 128 }
}

/// A variable-length custom type whose payload nests Standard values, like Flutter's tests' `81 …`.
struct Tagged: CustomStandardValue {
    var label: String
    var payload: StandardValue
    var customTag: UInt8 { 129 }
}

struct GeometryExtension: StandardCodecExtension {
    func writeValue(_ value: CustomValue, to writer: inout StandardWriter) throws(CodecError) -> Bool {
        if let point = value.as(Point.self) {
            writer.writeByte(128)
            writer.writeInt32(point.x)
            writer.writeInt32(point.y)
            return true
        }
        if let tagged = value.as(Tagged.self) {
            writer.writeByte(129)
            try writer.writeValue(.string(tagged.label))
            try writer.writeValue(tagged.payload)
            return true
        }
        return false
    }

    func readValue(ofType type: UInt8, from reader: inout StandardReader) throws(CodecError) -> StandardValue? {
        switch type {
        case 128:
            return .custom(CustomValue(Point(x: try reader.readInt32(), y: try reader.readInt32())))
        case 129:
            guard case .string(let label) = try reader.readValue() else {
                throw CodecError(.invalidEnvelope, "label is not a string", offset: reader.offset)
            }
            return .custom(CustomValue(Tagged(label: label, payload: try reader.readValue())))
        default:
            return nil
        }
    }
}

@Suite struct CustomTypeTests {
    let codec = StandardMessageCodec(extension: GeometryExtension())

    @Test func pointIsWrittenAsFlutterDoes() throws {
        let point = StandardValue.custom(CustomValue(Point(x: 9, y: 16)))
        #expect(try codec.encode(point) == hex("80 09000000 10000000"))
        #expect(try codec.decode(hex("80 09000000 10000000")) == point)
    }

    @Test func customValuesNestAndFallBackToStandardTypes() throws {
        let value: StandardValue = [
            .custom(
                CustomValue(Tagged(label: "p", payload: [.custom(CustomValue(Point(x: 1, y: 2))), .float64(0.5)]))),
            "after",
        ]
        let bytes = try codec.encode(value)
        #expect(try codec.decode(bytes) == value)
        // The float64 inside the custom payload is aligned from the start of the whole message.
        #expect(
            bytes == hex("0c02 81 070170 0c02 80 01000000 02000000 06 000000000000 000000000000e03f 07056166746572"))
    }

    @Test func withoutTheExtension() throws {
        let plain = StandardMessageCodec()
        let error = codecError { () throws(CodecError) in try plain.encode(.custom(CustomValue(Point(x: 1, y: 1)))) }
        #expect(error?.code == .unencodable)
        #expect(
            codecError { () throws(CodecError) in try plain.decode(hex("80 09000000 10000000")) }?.code == .unknownType)
        // Raw custom values (what TVN describes) need no extension to be written.
        let raw = StandardValue.custom(CustomValue(RawCustomValue(tag: 200, payload: [1, 2])))
        #expect(try plain.encode(raw) == hex("c8 0102"))
    }

    @Test func extensionErrorsPropagate() {
        #expect(codecError { () throws(CodecError) in try codec.decode(hex("80 0900")) }?.code == .truncated)
        #expect(
            codecError { () throws(CodecError) in try codec.decode(hex("81 00 00")) }?.message
                == "label is not a string")
        #expect(codecError { () throws(CodecError) in try codec.decode(hex("82")) }?.code == .unknownType)
    }
}

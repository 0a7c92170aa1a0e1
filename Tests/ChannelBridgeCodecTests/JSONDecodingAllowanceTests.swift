import ChannelBridgeCodec
import Testing

/// The JSON codecs bound the document a message builds: 12 × its bytes + 2 MiB, charged one
/// document value per array element, one member per object member and a heap header per
/// non-empty container.
@Suite struct JSONDecodingAllowanceTests {
    @Test func aLongArrayOfOneElementArraysIsRefused() {
        // `[0],` is 4 bytes on the wire; the outer element, the inner array's header and its
        // element are 80 in memory.
        let text = "[" + Array(repeating: "[0]", count: 100_000).joined(separator: ",") + "]"
        let error = codecError { () throws(CodecError) in try JSONMessageCodec().decode(Array(text.utf8)) }
        #expect(error?.code == .decodedTooLarge)
        #expect(
            error?.message == "JSON values would take more memory than the decoding allowance of this 400001-byte "
                + "message: 6897164 bytes (12 × its size + 2097152)")
        let call = #"{"method":"appendToList","args":"# + text + "}"
        #expect(
            codecError { () throws(CodecError) in try JSONMethodCodec().decodeMethodCall(Array(call.utf8)) }?.code
                == .decodedTooLarge)
    }

    @Test func realisticAndSmallMessagesDecode() throws {
        let numbers = (0..<100_000).map { String(1_000_000 + $0) }
        let text = "[" + numbers.joined(separator: ",") + "]"
        #expect(try JSONMessageCodec().decode(Array(text.utf8)).listValue?.count == 100_000)
        // The densest JSON fits: 2 bytes an element, 24 in memory.
        let zeros = "[" + Array(repeating: "0", count: 100_000).joined(separator: ",") + "]"
        #expect(try JSONMessageCodec().decode(Array(zeros.utf8)).listValue?.count == 100_000)
    }
}

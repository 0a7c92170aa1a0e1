import ChannelBridgeMessenger
import ChannelBridgeTestSupport
import Testing

@Suite struct FrameEncoderTests {
    /// Every frame kind, with its bytes worked out by hand from the layout in Protocol/wire-protocol.md.
    static let cases: [(Frame, String)] = [
        (.hello(.init(role: .client, peerName: "ab")), "0e000000 01 43484252 0100 0000 00 0200 6162"),
        (.hello(.init(role: .host, peerName: "")), "0c000000 01 43484252 0100 0000 01 0000"),
        (.request(id: 1, channel: "ch", payload: [0x2A]), "0b000000 02 01000000 0200 6368 00 2a"),
        (.request(id: 0x0102_0304, channel: "ch", payload: nil), "0a000000 02 04030201 0200 6368 01"),
        (.request(id: 2, channel: "é", payload: []), "0a000000 02 02000000 0200 c3a9 00"),
        (.reply(id: 7, result: .bytes([1, 2])), "08000000 03 07000000 00 0102"),
        (.reply(id: 7, result: .bytes([])), "06000000 03 07000000 00"),
        (.reply(id: 7, result: .null), "06000000 03 07000000 01"),
        (.reply(id: 7, result: .failure("x")), "07000000 03 07000000 02 78"),
        (.message(channel: "ch", payload: []), "06000000 04 0200 6368 00"),
        (.message(channel: "ch", payload: nil), "06000000 04 0200 6368 01"),
        (.message(channel: "ch", payload: [9, 8]), "08000000 04 0200 6368 00 0908"),
        (.cancel(id: 5), "05000000 05 05000000"),
        (.ping(token: 0x0102_0304_0506_0708), "09000000 06 0807060504030201"),
        (.pong(token: 0x0102_0304_0506_0708), "09000000 07 0807060504030201"),
        (.goodbye(code: .frameTooLarge, reason: "big"), "06000000 08 0300 626967"),
        (.goodbye(code: .normal, reason: ""), "03000000 08 0000"),
    ]

    @Test(arguments: 0..<cases.count)
    func encodesExactBytes(index: Int) throws {
        let (frame, expected) = Self.cases[index]
        #expect(try hexString(FrameEncoder.encode(frame)) == hexString(hex(expected)))
        #expect(FrameEncoder.encodedLength(of: frame) == hex(expected).count)
    }

    @Test func appendsToAnExistingBuffer() throws {
        var buffer: [UInt8] = [0xAA]
        try FrameEncoder.encode(.cancel(id: 1), into: &buffer)
        try FrameEncoder.encode(.ping(token: 2), into: &buffer)
        #expect(hexString(buffer) == "aa" + "050000000501000000" + "09000000060200000000000000")
    }

    @Test(arguments: 0..<cases.count)
    func decodesWhatItEncodes(index: Int) throws {
        let (frame, _) = Self.cases[index]
        var decoder = FrameDecoder()
        try decoder.append(FrameEncoder.encode(frame))
        #expect(try decoder.next() == frame)
        #expect(try decoder.next() == nil)
    }

    @Test func goodbyeCodesHaveTheirWireValues() {
        let codes: [GoodbyeCode] = [.normal, .unsupportedVersion, .protocolError, .frameTooLarge, .forbidden, .shuttingDown]
        #expect(codes.map(\.rawValue) == [0, 1, 2, 3, 4, 5])
        #expect(codes.map(\.description) ==
            ["normal", "unsupportedVersion", "protocolError", "frameTooLarge", "forbidden", "shuttingDown"])
    }
    /// The REPLY an in-place handler's answer goes out as: the same bytes as the `Frame`'s. Frames
    /// of up to 256 bytes are composed on the stack first: 246 and 247 bytes of payload are the
    /// frames of 256 and 257 bytes.
    @Test(arguments: [0, 1, 7, 246, 247, 300])
    func appendReplyWritesWhatTheFrameEncodesTo(payloadCount: Int) {
        let payload = (0..<payloadCount).map { UInt8(truncatingIfNeeded: $0 &* 13) }
        var expected: [UInt8] = [9, 9]
        FrameEncoder.encodeValidated(.reply(id: 0xA1B2_C3D4, result: .bytes(payload)), into: &expected)
        var written: [UInt8] = [9, 9]
        payload.withUnsafeBytes { FrameEncoder.appendReply(id: 0xA1B2_C3D4, payload: $0, into: &written) }
        #expect(written == expected)
        #expect(FrameEncoder.encodedReplyLength(payloadCount: payloadCount) == expected.count - 2)
    }
    /// The REQUEST a call on a connection goes out as: the same bytes as the `Frame`'s (with
    /// `channelbridge/bench`, 225 and 226 bytes of payload make frames of 256 and 257 bytes).
    @Test(arguments: [("a", 0), ("channelbridge/bench", 9), ("channelbridge/bench", 225), ("channelbridge/bench", 226),
                      ("ünï/cødé", 3), ("ünï/cødé", 300)])
    func appendRequestWritesWhatTheFrameEncodesTo(channel: String, payloadCount: Int) {
        let payload = (0..<payloadCount).map { UInt8(truncatingIfNeeded: $0 &* 7) }
        var expected: [UInt8] = [9]
        FrameEncoder.encodeValidated(.request(id: 77, channel: channel, payload: payload), into: &expected)
        var written: [UInt8] = [9]
        payload.withUnsafeBytes { FrameEncoder.appendRequest(id: 77, channel: channel, payload: $0, into: &written) }
        #expect(written == expected)
        #expect(FrameEncoder.encodedRequestLength(channel: channel, payloadCount: payloadCount) == expected.count - 1)
    }
}

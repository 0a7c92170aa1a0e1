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
        let codes: [GoodbyeCode] = [
            .normal, .unsupportedVersion, .protocolError, .frameTooLarge, .forbidden, .shuttingDown,
        ]
        #expect(codes.map(\.rawValue) == [0, 1, 2, 3, 4, 5])
        #expect(
            codes.map(\.description) == [
                "normal", "unsupportedVersion", "protocolError", "frameTooLarge", "forbidden", "shuttingDown",
            ])
    }
    /// Runs `store` on exactly `length` bytes inside a larger buffer whose other bytes are a
    /// sentinel, and returns those `length` bytes, checking that nothing around them was touched.
    static func stored(
        length: Int, _ store: (UnsafeMutableRawBufferPointer) -> Void,
        sourceLocation: SourceLocation = #_sourceLocation
    ) -> [UInt8] {
        var memory = [UInt8](repeating: 0xEE, count: length + 32)
        memory.withUnsafeMutableBytes { store(UnsafeMutableRawBufferPointer(rebasing: $0[16..<16 + length])) }
        #expect(
            memory[..<16].allSatisfy { $0 == 0xEE } && memory[(16 + length)...].allSatisfy { $0 == 0xEE },
            "written outside the frame's memory", sourceLocation: sourceLocation)
        return Array(memory[16..<16 + length])
    }

    /// The REPLY an in-place handler's answer goes out as, written into the transport's memory:
    /// the same bytes as the `Frame`'s, for payloads copied byte by byte (up to 16) and with one copy.
    @Test(arguments: [0, 1, 7, 16, 17, 246, 300])
    func storeReplyWritesWhatTheFrameEncodesTo(payloadCount: Int) throws {
        let payload = (0..<payloadCount).map { UInt8(truncatingIfNeeded: $0 &* 13) }
        let expected = try FrameEncoder.encode(.reply(id: 0xA1B2_C3D4, result: .bytes(payload)))
        let length = FrameEncoder.encodedReplyLength(payloadCount: payloadCount)
        #expect(length == expected.count)
        let written = Self.stored(length: length) { frame in
            payload.withUnsafeBytes { FrameEncoder.storeReply(id: 0xA1B2_C3D4, payload: $0, into: frame) }
        }
        #expect(written == expected)
    }

    /// The REQUEST a call on a connection goes out as, written into the transport's memory: the
    /// same bytes as the `Frame`'s, with ASCII and non-ASCII channel names.
    @Test(arguments: [
        ("a", 0), ("channelbridge/bench", 9), ("channelbridge/bench", 226),
        ("ünï/cødé", 3), ("ünï/cødé", 300),
    ])
    func storeRequestWritesWhatTheFrameEncodesTo(channel: String, payloadCount: Int) throws {
        let payload = (0..<payloadCount).map { UInt8(truncatingIfNeeded: $0 &* 7) }
        let expected = try FrameEncoder.encode(.request(id: 77, channel: channel, payload: payload))
        let length = FrameEncoder.encodedRequestLength(channel: channel, payloadCount: payloadCount)
        #expect(length == expected.count)
        let written = Self.stored(length: length) { frame in
            payload.withUnsafeBytes { FrameEncoder.storeRequest(id: 77, channel: channel, payload: $0, into: frame) }
        }
        #expect(written == expected)
    }

    /// Every kind of frame written by `storeValidated` into exactly its encoded length (what a
    /// transport's `write(frameOfLength:_:)` is given): the bytes worked out by hand.
    @Test(arguments: 0..<cases.count)
    func storeValidatedWritesExactBytes(index: Int) {
        let (frame, expected) = Self.cases[index]
        let written = Self.stored(length: FrameEncoder.encodedLength(of: frame)) {
            FrameEncoder.storeValidated(frame, into: $0)
        }
        #expect(hexString(written) == hexString(hex(expected)))
    }
}

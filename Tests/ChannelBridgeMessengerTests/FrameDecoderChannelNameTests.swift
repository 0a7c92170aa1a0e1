import ChannelBridgeMessenger
import ChannelBridgeTestSupport
import Testing

/// The decoder reuses recently seen channel names; every frame must still carry its own name,
/// and a bad name must still be refused after good ones.
@Suite struct FrameDecoderChannelNameTests {
    @Test func namesStayRightAcrossManyChannels() throws {
        // More names than the decoder remembers, same-length names that differ in one byte, and
        // names of 15 and 16 bytes (inline and allocated strings), in a seeded shuffle.
        let names = [
            "channelbridge/a", "channelbridge/b", "channelbridge/ab", "x", "y", "é/ü",
            "channelbridge/bench", "channelbridge/bencH", String(repeating: "n", count: 300),
            // 19 bytes like "channelbridge/bench", differing in its first and second
            // eight-byte words (the cache compares a word at a time) and in the last byte.
            "Channelbridge/bench", "channelbRidge/bench", String(repeating: "n", count: 299) + "m",
        ]
        var generator = SeededGenerator(seed: 11)
        var frames: [Frame] = []
        for id in 1...400 {
            let name = names.randomElement(using: &generator)!
            frames.append(
                id % 3 == 0
                    ? .message(channel: name, payload: [UInt8(id & 0xFF)])
                    : .request(id: UInt32(id), channel: name, payload: nil))
        }
        var bytes: [UInt8] = []
        for frame in frames { try FrameEncoder.encode(frame, into: &bytes) }
        var decoder = FrameDecoder()
        decoder.append(bytes)
        var decoded: [Frame] = []
        while let frame = try decoder.next() { decoded.append(frame) }
        #expect(decoded == frames)
    }

    @Test func invalidNameAfterValidOnesIsRefused() throws {
        var bytes = try FrameEncoder.encode(.message(channel: "ab", payload: nil))
        // The same length as "ab", not UTF-8.
        bytes += [6, 0, 0, 0, 0x04, 2, 0, 0xC3, 0x28, 1]
        var decoder = FrameDecoder()
        decoder.append(bytes)
        #expect(try decoder.next() == .message(channel: "ab", payload: nil))
        let error = #expect(throws: ProtocolViolation.self) { try decoder.next() }
        #expect(error?.code == .invalidUTF8)
    }
}

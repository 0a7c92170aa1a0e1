import ChannelBridgeBytes
import ChannelBridgeCodec
import ChannelBridgeTestSupport
import Testing

/// `encodeMethodCall(_:reusing:)` and `encodeSuccessEnvelope(_:reusing:)` write over a buffer
/// whose old bytes are room: the message is the buffer's first `count` bytes, whatever
/// the buffer held before, and equal to what the one-array encoders give.
@Suite struct StandardMethodCodecReuseTests {
    let codec = StandardMethodCodec()

    /// The message an encode over a buffer left there (a lent payload), or `nil` when it came
    /// back in a payload of its own.
    static func message(_ payload: Payload) -> [UInt8]? {
        payload.isLent && payload.isContiguous ? payload.array : nil
    }

    /// A long message first, then shorter and longer ones over the same storage, which keeps its
    /// earlier bytes after each message's end.
    @Test func messagesOverAReusedBufferAreExactlyTheirBytes() throws {
        var buffer: [UInt8] = []
        let calls = [
            MethodCall(
                "a long method name to leave bytes behind", arguments: .list((0..<40).map { .int64(Int64($0)) })),
            MethodCall("echo", arguments: "ping"),
            MethodCall("x"),
            MethodCall(
                "aligned", arguments: .list([.bool(true), .float64(2.5), .int32List([1, 2, 3]), .float64List([0.5])])),
            MethodCall("grows", arguments: .uint8List([UInt8](repeating: 0xAB, count: 5_000))),
            MethodCall("echo", arguments: .map([.init("k", "v"), .init(.int32(7), .null)])),
        ]
        for call in calls {
            var encoded = try codec.encodeMethodCall(call, reusing: consume buffer)
            #expect(Self.message(encoded) == (try codec.encodeMethodCall(call)), "\(call.method)")
            #expect(try codec.decodeMethodCall(Self.message(encoded) ?? []) == call)
            buffer = encoded.takeStorage()
        }
        // The storage was kept from call to call: after the 5,000-byte call it holds at least that much.
        #expect(buffer.count >= 5_000)
    }

    @Test func envelopesOverAReusedBufferAreExactlyTheirBytes() throws {
        var buffer = [UInt8](repeating: 0xEE, count: 300)
        let results: [StandardValue] = [
            "pong", .null, .float64(-0.0), .list(["a", .int64(.min), .float32List([1.5])]), "ok",
        ]
        let address = buffer.withUnsafeBufferPointer { $0.baseAddress }
        for result in results {
            var encoded = try codec.encodeSuccessEnvelope(result, reusing: consume buffer)
            #expect(Self.message(encoded) == (try codec.encodeSuccessEnvelope(result)))
            buffer = encoded.takeStorage()
        }
        #expect(buffer.withUnsafeBufferPointer { $0.baseAddress } == address, "the same storage, uncopied")
        #expect(buffer.count == 300, "a buffer with room enough is written over, not replaced")
    }

    /// A `Uint8List` of 64 KiB or more is kept in its own array: a payload of its own comes back,
    /// in segments, not lent (the buffer's storage went with the writer).
    @Test func aLargeByteListComesBackInSegments() throws {
        let buffer = [UInt8](repeating: 0xEE, count: 100)
        let large = [UInt8](repeating: 7, count: 1 << 16)
        let encoded = try codec.encodeMethodCall(MethodCall("big", arguments: .uint8List(large)), reusing: buffer)
        #expect(!encoded.isLent && !encoded.isContiguous)
        #expect(encoded.segments.count == 1)
        #expect(
            encoded.segments.first?.withUnsafeBufferPointer { $0.baseAddress }
                == large.withUnsafeBufferPointer { $0.baseAddress })
        #expect(encoded.array == (try codec.encodeMethodCall(MethodCall("big", arguments: .uint8List(large)))))
    }

    /// Random values, each over the storage the previous one left, against the one-array encoding
    /// and back through the decoder.
    @Test func randomValuesOverOneBuffer() throws {
        var generator = LawGenerator(seed: 0x5EED_0101)
        var buffer: [UInt8] = []
        for _ in 0..<1_000 {
            let value = generator.value(maxDepth: 4)
            var encoded = try codec.encodeSuccessEnvelope(value, reusing: consume buffer)
            let expected = try codec.encodeSuccessEnvelope(value)
            #expect(Self.message(encoded) == expected)
            buffer = encoded.takeStorage()
        }
    }

    /// `decodeMethodCall(in:recentMethod:)` gives what `decodeMethodCall(in:)` gives, value or
    /// error (offsets included), whether or not the call repeats the remembered method, and then
    /// remembers the call's method.
    @Test func aRepeatedMethodNameDecodesAsTheFullDecoderDoes() throws {
        var longForm = try codec.encodeMethodCall(MethodCall("echo", arguments: "x"))
        longForm.replaceSubrange(1..<2, with: [0xFE, 0x04, 0x00])  // the name's size in its 3-byte form
        let messages: [[UInt8]] = [
            try codec.encodeMethodCall(MethodCall("echo", arguments: "ping")),
            try codec.encodeMethodCall(MethodCall("echo", arguments: .list([.int32(1), .float64(2)]))),
            try codec.encodeMethodCall(MethodCall("echO", arguments: "same length, other bytes")),
            try codec.encodeMethodCall(MethodCall("ech", arguments: .null)),
            try codec.encodeMethodCall(MethodCall("echoes", arguments: .null)),
            try codec.encodeMethodCall(MethodCall("", arguments: .null)),
            try codec.encodeMethodCall(MethodCall("a method name longer than sixteen bytes", arguments: .int64(7))),
            try codec.encodeMethodCall(MethodCall("a method name longer than sixteen bytes", arguments: .int64(8))),
            longForm,
            [0x07, 0x04] + Array("echo".utf8),  // no arguments
            [0x07, 0x04] + Array("echo".utf8) + [0x03, 0x01],  // truncated int32
            [0x07, 0x04] + Array("echo".utf8) + [0x00, 0x00],  // a trailing byte
            [0x07, 0x04] + Array("ec".utf8),  // a name cut short
            [0x03, 0x01, 0x00, 0x00, 0x00, 0x00],  // not a string
        ]
        for recentStart in ["", "echo", "a method name longer than sixteen bytes"] {
            var recent = StandardMethodCodec.RecentMethod()
            if !recentStart.isEmpty {
                // Remembered the way a decode remembers it.
                let first = try codec.encodeMethodCall(MethodCall(recentStart))
                _ = try first.withUnsafeBytes { raw in try codec.decodeMethodCall(in: raw, recentMethod: &recent) }
                #expect(recent.name == recentStart)
            }
            for message in messages {
                let expected = message.withUnsafeBytes { raw in
                    Result { () throws(CodecError) in try codec.decodeMethodCall(in: raw) }
                }
                let before = recent.name
                let got = message.withUnsafeBytes { raw in
                    Result { () throws(CodecError) in try codec.decodeMethodCall(in: raw, recentMethod: &recent) }
                }
                switch (expected, got) {
                case (.success(let a), .success(let b)):
                    #expect(a == b, "\(Hex.encode(message)) after \(before)")
                    #expect(recent.name == a.method)
                case (.failure(let a), .failure(let b)):
                    #expect(
                        a.code == b.code && a.offset == b.offset && a.message == b.message,
                        "\(Hex.encode(message)) after \(before)")
                default:
                    Issue.record("\(Hex.encode(message)) after \(before): \(expected) but \(got)")
                }
            }
        }
    }
}

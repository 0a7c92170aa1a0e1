import ChannelBridgeCodec
import ChannelBridgeTestSupport
import Testing

/// `StandardMethodCodec.recentCallArguments(in:recent:)` and `StandardEncodedArguments.onlyString(named:)`:
/// a string argument read from a call's bytes, only ever what decoding the call gives.
@Suite struct StandardEncodedArgumentsTests {
    /// The method name of every call below: `get`.
    static let method = hex("07 03 676574")
    /// `{key: "warm"}`.
    static let warm = hex("0d 01  07 03 6b6579  07 04 7761726d")

    /// What `onlyString(named: "key")` reads from a call to `get` with `arguments`, once a call to
    /// `get` has been decoded (so that the codec knows the method); `nil` when the call is not
    /// found to be to `get` either.
    private func read(_ arguments: [UInt8], codec: StandardMethodCodec = StandardMethodCodec()) throws -> String? {
        var recent = StandardMethodCodec.RecentMethod()
        let first = try (Self.method + hex("00")).withUnsafeBytes {
            try codec.decodeMethodCall(in: $0, recentMethod: &recent)
        }
        #expect(first.method == "get")
        return (Self.method + arguments).withUnsafeBytes { bytes in
            codec.recentCallArguments(in: bytes, recent: &recent)?.onlyString(named: "key")
        }
    }

    @Test func readsTheOneStringArgument() throws {
        #expect(try read(Self.warm) == "warm")
        // Not ASCII: "clé".
        #expect(try read(hex("0d 01  07 03 6b6579  07 04 636cc3a9")) == "clé")
        #expect(try read(hex("0d 01  07 03 6b6579  07 00")) == "")
        // The longer size forms, which the decoder reads too.
        #expect(try read(hex("0d 01  07 03 6b6579  07 fe 0400 7761726d")) == "warm")
        #expect(try read(hex("0d 01  07 03 6b6579  07 ff 04000000 7761726d")) == "warm")
        let long = String(repeating: "k", count: 300)
        #expect(try read(hex("0d 01  07 03 6b6579  07 fe 2c01") + Array(long.utf8)) == long)
    }

    @Test func declinesEveryOtherShape() throws {
        let declined: [(String, [UInt8])] = [
            ("null arguments", hex("00")),
            ("no arguments", []),
            ("an empty map", hex("0d 00")),
            ("two entries", hex("0d 02  07 03 6b6579 07 04 7761726d  07 01 78 00")),
            ("another key", hex("0d 01  07 03 6b6578  07 04 7761726d")),
            ("a longer key", hex("0d 01  07 04 6b657973  07 04 7761726d")),
            ("the key as a legacy large integer", hex("0d 01  05 03 6b6579  07 04 7761726d")),
            ("the key's size in the two-byte form", hex("0d 01  07 fe 0300 6b6579  07 04 7761726d")),
            ("an int value", hex("0d 01  07 03 6b6579  03 05000000")),
            ("a null value", hex("0d 01  07 03 6b6579  00")),
            ("the value as a legacy large integer", hex("0d 01  07 03 6b6579  05 04 7761726d")),
            ("a byte after the map", hex("0d 01  07 03 6b6579  07 04 7761726d 00")),
            ("a truncated value", hex("0d 01  07 03 6b6579  07 04 776172")),
            ("a truncated key", hex("0d 01  07 03 6b65")),
            ("invalid UTF-8", hex("0d 01  07 03 6b6579  07 02 c328")),
            ("a list", hex("0c 01  07 04 7761726d")),
        ]
        for (shape, arguments) in declined {
            #expect(try read(arguments) == nil, "\(shape)")
        }
        // A codec that lets no value nest refuses the map when decoding, so declines it here.
        let flat = StandardMethodCodec(StandardMessageCodec(maxDepth: 0))
        #expect(try read(Self.warm, codec: flat) == nil)
        #expect(try read(Self.warm, codec: StandardMethodCodec(StandardMessageCodec(maxDepth: 1))) == "warm")
    }

    /// A call to a method other than the one decoded last is not offered: it is decoded in full.
    @Test func aCallToAnotherMethodIsNotOffered() throws {
        let codec = StandardMethodCodec()
        var recent = StandardMethodCodec.RecentMethod()
        _ = try (Self.method + hex("00")).withUnsafeBytes { try codec.decodeMethodCall(in: $0, recentMethod: &recent) }
        // `gex`, `ge`, and `get` with its name's size in the two-byte form.
        for call in [
            hex("07 03 676578") + Self.warm, hex("07 02 6765") + Self.warm, hex("07 fe 0300 676574") + Self.warm,
        ] {
            #expect(call.withUnsafeBytes { codec.recentCallArguments(in: $0, recent: &recent) } == nil)
        }
        #expect(recent.name == "get")
        let found = (Self.method + Self.warm).withUnsafeBytes {
            codec.recentCallArguments(in: $0, recent: &recent)?.onlyString(named: "key")
        }
        #expect(found == "warm")
    }

    /// Every byte of `get {key: "warm"}` changed to each other value, and every truncation: a
    /// string read is always the decoded call's, whose arguments are exactly that one entry.
    @Test func whatIsReadIsWhatDecodingGives() throws {
        let codec = StandardMethodCodec()
        var variants: [[UInt8]] = (0...Self.warm.count).map { Array(Self.warm.prefix($0)) }
        for index in Self.warm.indices {
            for byte in UInt8.min...UInt8.max where byte != Self.warm[index] {
                var changed = Self.warm
                changed[index] = byte
                variants.append(changed)
            }
        }
        var readCount = 0
        for arguments in variants {
            guard let string = try read(arguments) else { continue }
            readCount += 1
            let call = try codec.decodeMethodCall(Self.method + arguments)
            #expect(call.arguments == .map([.init(.string("key"), .string(string))]), "\(hexString(arguments))")
        }
        // The original, and the value's bytes changed to other ASCII and valid UTF-8.
        #expect(readCount > 100)
    }
}

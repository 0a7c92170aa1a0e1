@testable import ChannelBridgeMessenger
import Testing

/// The name cache's byte comparison: eight bytes at a time, the last ones as an overlapping word.
@Suite struct ChannelNameCacheTests {
    /// Every length from empty to five words and a bit, and a difference at every position: equal
    /// only when no byte differs.
    @Test func bytesCompareEqualOnlyWhenEveryByteIs() {
        for count in 0...41 {
            let bytes = (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) }
            bytes.withUnsafeBytes { a in
                let same = bytes
                same.withUnsafeBytes { b in #expect(ChannelNameCache.equal(a, b), "length \(count)") }
                for position in 0..<count {
                    var other = bytes
                    other[position] ^= 0x20
                    other.withUnsafeBytes { b in
                        #expect(!ChannelNameCache.equal(a, b), "length \(count), differing at \(position)")
                    }
                }
            }
        }
    }

    @Test func buffersOfOtherLengthsAreNotEqual() {
        let long: [UInt8] = Array("channelbridge/bench".utf8)
        long.withUnsafeBytes { a in
            long.dropLast().withUnsafeBytes { b in #expect(!ChannelNameCache.equal(a, b)) }
        }
    }

    @Test func aRememberedNameIsFoundByItsBytesOnly() {
        var cache = ChannelNameCache()
        for name in ["channelbridge/bench", "channelbridge/bencH", "x", "é/ü", "channelbridge/a"] {
            Array(name.utf8).withUnsafeBytes { cache.remember(name, bytes: $0) }
        }
        // Four are kept: the first one remembered was replaced by the fifth.
        for name in ["channelbridge/bencH", "x", "é/ü", "channelbridge/a"] {
            Array(name.utf8).withUnsafeBytes { #expect(cache.name(for: $0) == name) }
        }
        Array("channelbridge/bench".utf8).withUnsafeBytes { #expect(cache.name(for: $0) == nil) }
        Array("channelbridge/b".utf8).withUnsafeBytes { #expect(cache.name(for: $0) == nil) }
    }
}

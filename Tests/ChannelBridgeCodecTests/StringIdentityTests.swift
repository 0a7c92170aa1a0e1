import ChannelBridgeCodec
import Testing

/// Strings are told apart by their code units, as Dart tells them apart: `"\u{E9}"` (é) and
/// `"e\u{301}"` (e and a combining acute accent), one `String` to Swift's `==`, are two values,
/// two map keys and two JSON member names.
@Suite struct StringIdentityTests {
    static let composed = "caf\u{E9}"
    static let decomposed = "cafe\u{301}"

    @Test func canonicallyEquivalentStringsAreTwoValuesWithTheirOwnHashes() {
        // The premise: Swift's String calls them equal.
        #expect(Self.composed == Self.decomposed)
        #expect(StandardValue.string(Self.composed) != .string(Self.decomposed))
        #expect(StandardValue.string(Self.composed).hashValue != StandardValue.string(Self.decomposed).hashValue)
        let set: Set<StandardValue> = [.string(Self.composed), .string(Self.decomposed)]
        #expect(set.count == 2)
        #expect(set.contains(.string(Self.composed)) && set.contains(.string(Self.decomposed)))
        // Nested: lists and maps compare their strings the same way.
        #expect(StandardValue.list([.string(Self.composed)]) != .list([.string(Self.decomposed)]))
        #expect(StandardValue.map([.string(Self.composed): 1]) != .map([.string(Self.decomposed): 1]))
    }

    @Test func theSameCodeUnitsAreEqualAndHashAlikeHoweverTheStringWasMade() {
        let rebuilt = String(decoding: Array(Self.decomposed.utf8), as: UTF8.self)
        let fromScalars = String(String.UnicodeScalarView(Self.decomposed.unicodeScalars))
        for other in [rebuilt, fromScalars, "cafe" + "\u{301}"] {
            #expect(StandardValue.string(other) == .string(Self.decomposed))
            #expect(StandardValue.string(other).hashValue == StandardValue.string(Self.decomposed).hashValue)
        }
        // Long strings (past the eight-byte steps of the comparison) differing in one late byte.
        let long = String(repeating: "x", count: 37)
        #expect(StandardValue.string(long + Self.composed) != .string(long + Self.decomposed))
        #expect(StandardValue.string(long + "a") != .string(long + "b"))
        #expect(StandardValue.string(long + "a") == .string(String(long) + "a"))
        #expect(StandardValue.string("") == .string(""))
    }

    @Test func aMapHoldingBothSpellingsKeepsTwoEntriesThroughTheCodecs() throws {
        let map: StandardValue = .map([.string(Self.composed): .int32(1), .string(Self.decomposed): .int32(2)])
        let standard = StandardMessageCodec()
        let decoded = try standard.decode(try standard.encode(map))
        #expect(decoded == map)
        #expect(decoded.mapEntries?.count == 2)
        #expect(decoded[Self.composed] == .int32(1))
        #expect(decoded[Self.decomposed] == .int32(2))
        #expect(decoded[.string(Self.decomposed)] == .int32(2))

        let json = JSONMessageCodec()
        let fromJSON = try json.decode(try json.encode(map))
        #expect(fromJSON.mapEntries?.count == 2)
        #expect(fromJSON[Self.composed] == .int32(1))
        #expect(fromJSON[Self.decomposed] == .int32(2))
    }

    @Test func jsonValuesTellMemberNamesAndStringsApartByCodeUnits() throws {
        let document = try JSONValue.parse(#"{"caf\u00e9": 1, "cafe\u0301": 2}"#)
        #expect(document[Self.composed] == .number("1"))
        #expect(document[Self.decomposed] == .number("2"))
        #expect(JSONValue.string(Self.composed) != .string(Self.decomposed))
        #expect(Set([JSONValue.string(Self.composed), .string(Self.decomposed)]).count == 2)
        let one = JSONValue.object([.init(Self.composed, .null)])
        let other = JSONValue.object([.init(Self.decomposed, .null)])
        #expect(one != other)
        #expect(Set([one, other]).count == 2)
        #expect(one == JSONValue.object([.init("caf\u{E9}", .null)]))
    }

    /// A short ASCII string the reader makes from its two words is the one the standard library
    /// makes of the same bytes, bit for bit, at every length a small string holds: if a standard
    /// library laid small strings out otherwise, this fails before any value is misread.
    @Test func aShortStringReadIsTheStandardLibrarysOwnSmallString() throws {
        let alphabet = Array("abcdefghijklmnopqrstuvwxyz0123456789 ~\u{7F}\u{1}".utf8)
        for count in 0...20 {
            let bytes = (0..<count).map { alphabet[($0 * 7 + count) % alphabet.count] }
            let expected = String(decoding: bytes, as: UTF8.self)
            let read = try #require(bytes.withUnsafeBytes { StandardReader.string(utf8: $0) })
            if count <= 15 {
                #expect(
                    unsafeBitCast(read, to: (UInt64, UInt64).self) == unsafeBitCast(expected, to: (UInt64, UInt64).self)
                )
            }
            #expect(read == expected)
            #expect(read.utf8.count == count)
            #expect(Array(read.utf8) == bytes)
            #expect(read.hashValue == expected.hashValue)
            #expect(read + "!" == expected + "!")
        }
        // Not ASCII: validated, and refused when invalid.
        #expect(Array("caf\u{E9}".utf8).withUnsafeBytes { StandardReader.string(utf8: $0) } == "caf\u{E9}")
        #expect(([0xC3, 0x28] as [UInt8]).withUnsafeBytes { StandardReader.string(utf8: $0) } == nil)
    }
}

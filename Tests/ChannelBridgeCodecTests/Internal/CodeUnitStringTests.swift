@testable import ChannelBridgeCodec
import Testing

/// Strings are one identity when their UTF-8 code units are, whatever their representation: the
/// same storage, two storages with the same bytes, small strings, bridged or native.
@Suite struct CodeUnitStringTests {
    @Test func equalCodeUnitsAreEqualWhateverTheStorage() {
        let large = String(repeating: "préférence-", count: 4)
        let copy = String(decoding: Array(large.utf8), as: UTF8.self)  // another storage
        #expect(CodeUnitString.equal(large, large))
        #expect(CodeUnitString.equal(large, copy))
        #expect(CodeUnitString.equal("key", String(decoding: Array("key".utf8), as: UTF8.self)))
        #expect(CodeUnitString.equal("", ""))
        let substringBacked = String(large.utf8.dropFirst(0))!  // a shared-storage copy
        #expect(CodeUnitString.equal(large, substringBacked))
    }

    /// Canonically equivalent strings, which `String` calls equal, are two identities here; so
    /// are strings that differ in one byte or in length.
    @Test func differentCodeUnitsAreDifferent() {
        #expect("\u{E9}" == "e\u{301}")
        #expect(!CodeUnitString.equal("\u{E9}", "e\u{301}"))
        #expect(!CodeUnitString.equal("key", "kez"))
        #expect(!CodeUnitString.equal("key", "keys"))
        let large = String(repeating: "a", count: 40)
        #expect(!CodeUnitString.equal(large, large + "b"))
        #expect(!CodeUnitString.equal(large, String(repeating: "a", count: 39) + "b"))
        #expect(CodeUnitString(large) != CodeUnitString(String(repeating: "a", count: 39) + "c"))
        #expect(Set([CodeUnitString("\u{E9}"), CodeUnitString("e\u{301}")]).count == 2)
    }
}

import ChannelBridgeHost
import ChannelBridgeTestSupport
import FoundationEssentials
import Testing

/// Info.plist files that are valid binary property lists but whose objects refer back to
/// themselves (found by the info-plist fuzz target): the reader follows only the keys it needs,
/// so they are read, or refused, at once instead of recursing without end.
@Suite struct ActivationRuleHostileFileTests {
    static func parse(_ hexText: String) throws(HostError) -> ActivationRule {
        try ActivationRule.parse(propertyList: Data(hex(hexText)), source: "Info.plist")
    }

    /// The root dictionary's NSExtension is the root itself.
    @Test func selfReferenceIsFollowedOnlyAsFarAsTheRuleKeys() {
        let error = #expect(throws: HostError.self) {
            try Self.parse(
                "62706c6973743030d101005b4e53457874656e73696f6e080b0000000000000101000000000000000200000000000000000000000000000017"
            )
        }
        #expect(error?.message == "--info-plist Info.plist: there is no NSExtension → NSExtensionAttributes dictionary")
    }

    /// Fourteen keys of the root all refer to the root: reading every key of every level would
    /// take 14^depth steps.
    @Test func wideCyclesAreNotWalked() {
        let error = #expect(throws: HostError.self) {
            try Self.parse(
                "62706c6973743030de0102030405060708090a0b0c0d0e0000000000000000000000000000526b30526b31526b32526b33526b34526b35526b36526b37526b38526b39536b3130536b3131536b31325b4e53457874656e73696f6e0825282b2e3134373a3d4043474b4f0000000000000101000000000000000f0000000000000000000000000000005b"
            )
        }
        #expect(error?.message == "--info-plist Info.plist: there is no NSExtension → NSExtensionAttributes dictionary")
    }

    /// The rule's own entry is the rule dictionary: a container where a boolean belongs.
    @Test func aRuleEntryThatIsTheRuleIsRefused() {
        let error = #expect(throws: HostError.self) {
            try Self.parse(
                "62706c6973743030d101025b4e53457874656e73696f6ed103045f10154e53457874656e73696f6e41747472696275746573d105065f10194e53457874656e73696f6e41637469766174696f6e52756c65d107065f10214e53457874656e73696f6e41637469766174696f6e537570706f72747354657874080b171a323551540000000000000101000000000000000800000000000000000000000000000078"
            )
        }
        #expect(
            error?.message == "--info-plist Info.plist: NSExtensionActivationRule → NSExtensionActivationSupportsText "
                + "must be a boolean (<true/> or <false/>)")
    }

    /// Seven or more 0xFF bytes in an `<integer>` stopped the process inside Foundation's XML reader
    /// (a fatal error, found by the info-plist fuzz target); text-form property lists must be UTF-8.
    @Test func invalidUTF8InTextFormIsRefused() {
        let xml =
            Array(#"<?xml version="1.0" encoding="UTF-8"?><plist version="1.0"><dict><key>NSExtension</key>"#.utf8)
            + Array("<dict><key>NSExtensionAttributes</key><dict><key>NSExtensionActivationRule</key><dict>".utf8)
            + Array("<key>NSExtensionActivationSupportsAttachmentsWithMinCount</key><integer>".utf8)
            + Array(repeating: 0xFF, count: 16) + [0x31]
            + Array("</integer></dict></dict></dict></dict></plist>".utf8)
        let error = #expect(throws: HostError.self) {
            try ActivationRule.parse(propertyList: Data(xml), source: "Info.plist")
        }
        #expect(error?.message == "--info-plist Info.plist: not a property list: the text is not valid UTF-8")
    }
}

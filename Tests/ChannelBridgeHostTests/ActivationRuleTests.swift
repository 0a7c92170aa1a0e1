import ChannelBridgeTestSupport
import ChannelBridgeHost
import Foundation
import Testing

@Suite struct ActivationRuleTests {
    private static func rule(_ ruleXML: String) throws -> ActivationRule {
        let xml = """
            <?xml version="1.0" encoding="UTF-8"?>
            <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
            <plist version="1.0"><dict><key>NSExtension</key><dict><key>NSExtensionAttributes</key><dict>
            <key>NSExtensionActivationRule</key>\(ruleXML)</dict></dict></dict></plist>
            """
        return try ActivationRule.parse(propertyList: Data(xml.utf8), source: "Info.plist")
    }

    private static func refusal(_ rule: ActivationRule, _ attachments: [InputAttachment]) -> String? {
        do {
            try rule.check([InputItem(attachments: attachments)])
            return nil
        } catch {
            return error.message
        }
    }

    private static let prefix =
        "--info-plist Info.plist: its NSExtensionActivationRule does not allow the input items: "

    @Test func theDictionaryFormCountsEachKind() throws {
        let rule = try Self.rule(
            """
            <dict><key>NSExtensionActivationSupportsText</key><true/>
            <key>NSExtensionActivationSupportsWebURLWithMaxCount</key><integer>1</integer>
            <key>NSExtensionActivationSupportsImageWithMaxCount</key><integer>2</integer>
            <key>NSExtensionActivationSupportsFileWithMaxCount</key><integer>1</integer></dict>
            """)
        #expect(
            Self.refusal(
                rule,
                [
                    .text("a"), .text("b"), .url("u"), .file(path: "/p.png"), .file(path: "/q.JPG"),
                    .file(path: "/r.pdf"),
                ]) == nil)
        #expect(
            Self.refusal(rule, [.url("u"), .url("v")])
                == Self.prefix + "2 web URL attachments, but NSExtensionActivationSupportsWebURLWithMaxCount is 1")
        #expect(
            Self.refusal(rule, [.file(path: "/a.png"), .file(path: "/b.png"), .file(path: "/c.gif")])
                == Self.prefix + "3 image attachments, but NSExtensionActivationSupportsImageWithMaxCount is 2")
        #expect(
            Self.refusal(rule, [.file(path: "/a.mov")])
                == Self.prefix + "1 movie attachment, but NSExtensionActivationSupportsMovieWithMaxCount is absent (0)")
        #expect(
            Self.refusal(rule, [.file(path: "/a.txt"), .file(path: "/b")])
                == Self.prefix + "2 file attachments, but NSExtensionActivationSupportsFileWithMaxCount is 1")
        // An explicit type identifier decides the kind, not the name.
        var movie = InputAttachment.file(path: "/a.bin")
        movie.typeIdentifier = "com.apple.quicktime-movie"
        #expect(Self.refusal(rule, [movie]) != nil)
    }

    @Test func textNeedsSupportsTextTrue() throws {
        let absent = try Self.rule(
            "<dict><key>NSExtensionActivationSupportsWebURLWithMaxCount</key><integer>1</integer></dict>")
        #expect(
            Self.refusal(absent, [.text("t")])
                == Self.prefix + "1 text attachment, but NSExtensionActivationSupportsText is absent")
        let no = try Self.rule("<dict><key>NSExtensionActivationSupportsText</key><false/></dict>")
        #expect(
            Self.refusal(no, [.text("t")]) == Self.prefix
                + "1 text attachment, but NSExtensionActivationSupportsText is false")
    }

    @Test func attachmentCountsBoundTheTotal() throws {
        let rule = try Self.rule(
            """
            <dict><key>NSExtensionActivationSupportsText</key><true/>
            <key>NSExtensionActivationSupportsAttachmentsWithMaxCount</key><integer>2</integer>
            <key>NSExtensionActivationSupportsAttachmentsWithMinCount</key><integer>1</integer>
            <key>NSExtensionActivationDictionaryVersion</key><integer>2</integer></dict>
            """)
        #expect(Self.refusal(rule, [.text("a"), .text("b")]) == nil)
        #expect(
            Self.refusal(rule, [.text("a"), .text("b"), .text("c")])
                == Self.prefix + "3 attachments in all, but NSExtensionActivationSupportsAttachmentsWithMaxCount is 2")
        #expect(
            Self.refusal(rule, []) == Self.prefix
                + "0 attachments in all, but NSExtensionActivationSupportsAttachmentsWithMinCount is 1")
    }

    @Test func predicateStrings() throws {
        #expect(Self.refusal(try Self.rule("<string> TRUEPREDICATE </string>"), [.url("u"), .text("t")]) == nil)
        #expect(
            Self.refusal(try Self.rule("<string>FALSEPREDICATE</string>"), [])
                == Self.prefix + "the rule is FALSEPREDICATE, which allows nothing")
        #expect(throws: HostError.self) {
            try Self.rule("<string>SUBQUERY(extensionItems, $e, TRUEPREDICATE).@count == 1</string>")
        }
    }

    @Test func malformedRulesAreStartupErrorsNamingTheKey() throws {
        let unknown = #expect(throws: HostError.self) {
            try Self.rule(
                "<dict><key>NSExtensionActivationSupportsWebPagesWithMaxCount</key><integer>1</integer></dict>")
        }
        #expect(
            unknown?.message.hasPrefix(
                "--info-plist Info.plist: NSExtensionActivationRule has the key "
                    + "NSExtensionActivationSupportsWebPagesWithMaxCount, which the host does not know") == true)
        let boolCount = #expect(throws: HostError.self) {
            try Self.rule("<dict><key>NSExtensionActivationSupportsImageWithMaxCount</key><true/></dict>")
        }
        #expect(
            boolCount?.message == "--info-plist Info.plist: NSExtensionActivationRule → "
                + "NSExtensionActivationSupportsImageWithMaxCount must be an integer of 0 or more")
        let fractionCount = #expect(throws: HostError.self) {
            try Self.rule("<dict><key>NSExtensionActivationSupportsImageWithMaxCount</key><real>1.5</real></dict>")
        }
        #expect(
            fractionCount?.message == "--info-plist Info.plist: NSExtensionActivationRule → "
                + "NSExtensionActivationSupportsImageWithMaxCount must be an integer of 0 or more")
        // PropertyListDecoder hands a whole <real> out as an integer, so it is a count.
        let wholeReal = try Self.rule(
            "<dict><key>NSExtensionActivationSupportsImageWithMaxCount</key><real>2.0</real></dict>")
        #expect(
            wholeReal
                == (try Self.rule(
                    "<dict><key>NSExtensionActivationSupportsImageWithMaxCount</key><integer>2</integer></dict>")))
        let numberText = #expect(throws: HostError.self) {
            try Self.rule("<dict><key>NSExtensionActivationSupportsText</key><integer>1</integer></dict>")
        }
        #expect(
            numberText?.message == "--info-plist Info.plist: NSExtensionActivationRule → "
                + "NSExtensionActivationSupportsText must be a boolean (<true/> or <false/>)")
        let missing = #expect(throws: HostError.self) {
            try ActivationRule.parse(
                propertyList: Data(
                    """
                    <plist version="1.0"><dict><key>NSExtension</key><dict><key>NSExtensionAttributes</key><dict/></dict></dict></plist>
                    """.utf8), source: "I")
        }
        #expect(
            missing?.message
                == "--info-plist I: there is no NSExtension → NSExtensionAttributes → NSExtensionActivationRule")
    }

    @Test func anUnreadableFileIsNamed() {
        let error = #expect(throws: HostError.self) { try ActivationRule.load(infoPlist: "/nonexistent/Info.plist") }
        #expect(error?.message.hasPrefix("--info-plist /nonexistent/Info.plist: cannot read the file") == true)
    }
}

import ChannelBridgeHost
import FoundationEssentials

/// Entry point: the host's Info.plist activation-rule reader, `ActivationRule.parse(propertyList:source:)`
/// (XML, binary and OpenStep property lists, read by Foundation's `PropertyListDecoder`).
enum InfoPlistTarget: FuzzTarget {
    static let name = "info-plist"

    static func run(_ input: [UInt8]) {
        let rule: ActivationRule
        do {
            rule = try ActivationRule.parse(propertyList: Data(input), source: "Info.plist")
        } catch {
            require(error.code == .activationRule, "the rule reader failed with \(error.code): \(error)")
            return
        }
        // The rule, written back as an XML Info.plist, reads back the same.
        do {
            let again = try ActivationRule.parse(propertyList: Data(xml(rule).utf8), source: "Info.plist")
            require(again == rule, "a rule written back reads differently: \(rule.form) became \(again.form)")
        } catch {
            finding("a rule written back does not read: \(error)")
        }
        // Checking items against it never traps.
        for items in sampleItems { _ = try? rule.check(items) }
    }

    static let sampleItems: [[InputItem]] = [
        [],
        [InputItem(attachments: [.text("t"), .url("https://a"), .file(path: "/a/b.png"), .file(path: "/a/c.mov")])],
        [InputItem(attachments: [.file(path: "/x/y.bin")]), InputItem(attachments: [.url("u"), .url("v")])],
    ]

    static func xml(_ rule: ActivationRule) -> String {
        let body: String
        switch rule.form {
        case .truePredicate: body = "<string>TRUEPREDICATE</string>"
        case .falsePredicate: body = "<string>FALSEPREDICATE</string>"
        case .dictionary(let limits):
            var entries = ""
            if limits.presentKeys.contains("NSExtensionActivationSupportsText") {
                entries +=
                    "<key>NSExtensionActivationSupportsText</key>" + (limits.supportsText ? "<true/>" : "<false/>")
            }
            let counts: [(String, Int?)] = [
                ("NSExtensionActivationSupportsWebURLWithMaxCount", limits.webURLMax),
                ("NSExtensionActivationSupportsWebPageWithMaxCount", limits.webPageMax),
                ("NSExtensionActivationSupportsImageWithMaxCount", limits.imageMax),
                ("NSExtensionActivationSupportsMovieWithMaxCount", limits.movieMax),
                ("NSExtensionActivationSupportsFileWithMaxCount", limits.fileMax),
                ("NSExtensionActivationSupportsAttachmentsWithMaxCount", limits.attachmentsMax),
                ("NSExtensionActivationSupportsAttachmentsWithMinCount", limits.attachmentsMin),
            ]
            for (key, count) in counts where limits.presentKeys.contains(key) {
                entries += "<key>\(key)</key><integer>\(count ?? 0)</integer>"
            }
            body = "<dict>\(entries)</dict>"
        }
        return """
            <?xml version="1.0" encoding="UTF-8"?>
            <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
            <plist version="1.0"><dict><key>NSExtension</key><dict><key>NSExtensionAttributes</key><dict>\
            <key>NSExtensionActivationRule</key>\(body)</dict></dict></dict></plist>
            """
    }

    static func seeds(_ source: SeedSource) throws -> [[UInt8]] {
        try source.committed(name)
    }
}

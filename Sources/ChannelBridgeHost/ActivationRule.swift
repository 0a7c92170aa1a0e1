package import FoundationEssentials

/// An extension's `NSExtensionActivationRule`: which shared items make the share sheet offer it.
///
/// The dictionary form (`NSExtensionActivationSupportsText`, `…WebURLWithMaxCount`, …) is
/// evaluated; of the predicate-string form only `TRUEPREDICATE` (allows everything) and
/// `FALSEPREDICATE` (allows nothing) are, and any other predicate is refused when loaded.
///
/// ```swift
/// let rule = try ActivationRule.load(infoPlist: "ShareExtension/Info.plist")
/// try rule.check([InputItem(attachments: [.url("https://a"), .url("https://b")])])
/// // throws: ... 2 web URL attachments, but NSExtensionActivationSupportsWebURLWithMaxCount is 1
/// ```
package struct ActivationRule: Sendable, Hashable {
    package enum Form: Sendable, Hashable {
        case truePredicate
        case falsePredicate
        case dictionary(Limits)
    }

    /// The dictionary form's limits; an absent count is 0, an absent `SupportsText` is false.
    package struct Limits: Sendable, Hashable {
        package var supportsText = false
        package var webURLMax = 0
        package var webPageMax = 0
        package var imageMax = 0
        package var movieMax = 0
        package var fileMax = 0
        package var attachmentsMax: Int?
        package var attachmentsMin: Int?
        /// The keys present, for messages that say whether a key was absent.
        package var presentKeys: Set<String> = []

        package init() {}
    }

    package var form: Form
    /// The file the rule came from, named in every message.
    package var source: String

    package init(form: Form, source: String) {
        self.form = form
        self.source = source
    }

    static let supportsText = "NSExtensionActivationSupportsText"
    static let webURLMax = "NSExtensionActivationSupportsWebURLWithMaxCount"
    static let webPageMax = "NSExtensionActivationSupportsWebPageWithMaxCount"
    static let imageMax = "NSExtensionActivationSupportsImageWithMaxCount"
    static let movieMax = "NSExtensionActivationSupportsMovieWithMaxCount"
    static let fileMax = "NSExtensionActivationSupportsFileWithMaxCount"
    static let attachmentsMax = "NSExtensionActivationSupportsAttachmentsWithMaxCount"
    static let attachmentsMin = "NSExtensionActivationSupportsAttachmentsWithMinCount"
    /// Accepted and not evaluated: the host matches by the keys above only.
    static let ignoredKeys: Set<String> = [
        "NSExtensionActivationDictionaryVersion", "NSExtensionActivationUsesStrictMatching",
    ]
    static let countKeys: [String] = [
        webURLMax, webPageMax, imageMax, movieMax, fileMax, attachmentsMax, attachmentsMin,
    ]

    /// Reads the rule from an `Info.plist` (XML, binary or OpenStep format) at
    /// `NSExtension` → `NSExtensionAttributes` → `NSExtensionActivationRule`.
    package static func load(infoPlist path: String) throws(HostError) -> ActivationRule {
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw HostError(
                .activationRule, "--info-plist \(path): cannot read the file: \(InputItemsFile.reason(error))")
        }
        return try parse(propertyList: data, source: path)
    }

    /// Reads the rule out of the bytes of an `Info.plist` (XML, binary or OpenStep format);
    /// `source` names it in errors.
    package static func parse(propertyList data: Data, source: String) throws(HostError) -> ActivationRule {
        // Foundation's XML reader traps (instead of throwing) on invalid UTF-8 inside some elements,
        // such as `<integer>`; the text forms must be UTF-8 anyway (found by fuzzing).
        if !data.starts(with: Self.binaryMagic), String(validating: data, as: UTF8.self) == nil {
            throw HostError(.activationRule, "--info-plist \(source): not a property list: the text is not valid UTF-8")
        }
        let lookup: InfoPlistRuleLookup
        do {
            lookup = try PropertyListDecoder().decode(InfoPlistRuleLookup.self, from: data)
        } catch {
            throw HostError(
                .activationRule, "--info-plist \(source): not a property list: \(InputItemsFile.reason(error))")
        }
        return try parse(lookup.outcome, source: source)
    }

    private static let binaryMagic = Array("bplist".utf8)

    /// Reads the rule found (or not) in a property list.
    static func parse(_ outcome: InfoPlistRuleLookup.Outcome, source: String) throws(HostError) -> ActivationRule {
        func fail(_ message: String) -> HostError { HostError(.activationRule, "--info-plist \(source): \(message)") }
        let rule: PropertyListValue
        switch outcome {
        case .notADictionary: throw fail("the property list is not a dictionary")
        case .noExtension: throw fail("there is no NSExtension dictionary")
        case .noAttributes: throw fail("there is no NSExtension → NSExtensionAttributes dictionary")
        case .noRule: throw fail("there is no NSExtension → NSExtensionAttributes → NSExtensionActivationRule")
        case .rule(let value): rule = value
        }
        if case .scalar(.string(let predicate)) = rule {
            switch predicate.trimmingWhitespaceAndNewlines {
            case "TRUEPREDICATE": return ActivationRule(form: .truePredicate, source: source)
            case "FALSEPREDICATE": return ActivationRule(form: .falsePredicate, source: source)
            default:
                let shown = predicate.count > 60 ? String(predicate.prefix(60)) + "…" : predicate
                throw fail(
                    "cannot evaluate the NSExtensionActivationRule predicate \(shown.debugDescription): "
                        + "the host evaluates TRUEPREDICATE, FALSEPREDICATE and the dictionary form "
                        + "(NSExtensionActivationSupports… keys)")
            }
        }
        guard case .dictionary(let dictionary) = rule else {
            throw fail("NSExtensionActivationRule must be a dictionary or a predicate string")
        }
        var limits = Limits()
        for key in dictionary.keys.sorted() {
            let value = dictionary[key]!
            if ignoredKeys.contains(key) { continue }
            limits.presentKeys.insert(key)
            if key == supportsText {
                guard case .bool(let flag) = value else {
                    throw fail("NSExtensionActivationRule → \(key) must be a boolean (<true/> or <false/>)")
                }
                limits.supportsText = flag
                continue
            }
            guard countKeys.contains(key) else {
                throw fail(
                    "NSExtensionActivationRule has the key \(key), which the host does not know; known keys: "
                        + ([supportsText] + countKeys + ignoredKeys.sorted()).joined(separator: ", "))
            }
            guard case .integer(let count) = value, count >= 0 else {
                throw fail("NSExtensionActivationRule → \(key) must be an integer of 0 or more")
            }
            switch key {
            case webURLMax: limits.webURLMax = count
            case webPageMax: limits.webPageMax = count
            case imageMax: limits.imageMax = count
            case movieMax: limits.movieMax = count
            case fileMax: limits.fileMax = count
            case attachmentsMax: limits.attachmentsMax = count
            default: limits.attachmentsMin = count
            }
        }
        return ActivationRule(form: .dictionary(limits), source: source)
    }

    /// Throws, naming the rule key, unless the rule allows `items`. Attachments are counted over
    /// every item: text, web URLs, images, movies, and other files (see `InputAttachment.kind`).
    package func check(_ items: [InputItem]) throws(HostError) {
        func refuse(_ reason: String) -> HostError {
            HostError(
                .activationRule,
                "--info-plist \(source): its NSExtensionActivationRule does not allow the input items: \(reason)")
        }
        let limits: Limits
        switch form {
        case .truePredicate: return
        case .falsePredicate: throw refuse("the rule is FALSEPREDICATE, which allows nothing")
        case .dictionary(let dictionary): limits = dictionary
        }
        var counts: [InputAttachment.Kind: Int] = [:]
        for attachment in items.flatMap(\.attachments) { counts[attachment.kind, default: 0] += 1 }
        let total = counts.values.reduce(0, +)

        func describe(_ key: String, _ value: Int) -> String {
            limits.presentKeys.contains(key) ? "\(key) is \(value)" : "\(key) is absent (0)"
        }
        func plural(_ count: Int, _ noun: String) -> String {
            "\(count) \(noun.isEmpty ? "" : noun + " ")attachment\(count == 1 ? "" : "s")"
        }

        if let text = counts[.text], text > 0, !limits.supportsText {
            let state = limits.presentKeys.contains(Self.supportsText) ? "false" : "absent"
            throw refuse("\(plural(text, "text")), but \(Self.supportsText) is \(state)")
        }
        let checks: [(InputAttachment.Kind, String, Int, String)] = [
            (.webURL, Self.webURLMax, limits.webURLMax, "web URL"),
            (.image, Self.imageMax, limits.imageMax, "image"),
            (.movie, Self.movieMax, limits.movieMax, "movie"),
            (.file, Self.fileMax, limits.fileMax, "file"),
        ]
        for (kind, key, maximum, noun) in checks {
            let count = counts[kind] ?? 0
            if count > maximum { throw refuse("\(plural(count, noun)), but \(describe(key, maximum))") }
        }
        if let maximum = limits.attachmentsMax, total > maximum {
            throw refuse("\(plural(total, "")) in all, but \(Self.attachmentsMax) is \(maximum)")
        }
        if let minimum = limits.attachmentsMin, total < minimum {
            throw refuse("\(plural(total, "")) in all, but \(Self.attachmentsMin) is \(minimum)")
        }
    }
}

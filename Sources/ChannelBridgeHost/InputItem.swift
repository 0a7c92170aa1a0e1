package import ChannelBridgeCodec

/// One input item of the extension request, as a share sheet delivers it (`NSExtensionItem`): an
/// optional title and content text and the shared attachments, in order.
///
/// ```swift
/// let item = InputItem(title: "A page", attachments: [.text("hello"), .url("https://example.com")])
/// item.standardValue   // {"title": "A page", "attachments": [{"typeIdentifier": "public.plain-text", ...}, ...]}
/// ```
public struct InputItem: Sendable, Hashable {
    package var title: String?
    package var contentText: String?
    package var attachments: [InputAttachment]

    public init(title: String? = nil, contentText: String? = nil, attachments: [InputAttachment] = []) {
        self.title = title
        self.contentText = contentText
        self.attachments = attachments
    }

    /// The item as `getInputItems` answers it: a map with `title` and `contentText` when set and
    /// `attachments` always.
    package var standardValue: StandardValue {
        var entries: [StandardValue.MapEntry] = []
        if let title { entries.append(.init("title", .string(title))) }
        if let contentText { entries.append(.init("contentText", .string(contentText))) }
        entries.append(.init("attachments", .list(attachments.map(\.standardValue))))
        return .map(entries)
    }
}

/// One shared attachment (`NSItemProvider`): text, a URL, or a file, with its type identifier.
public struct InputAttachment: Sendable, Hashable {
    package enum Content: Sendable, Hashable {
        case text(String)
        /// The URL exactly as it was given.
        case url(String)
        /// A file: its path and the name it is shared under.
        case file(path: String, name: String)
    }

    /// What an attachment counts as for `NSExtensionActivationRule` and for the `--share-key` JSON.
    package enum Kind: String, Sendable, Hashable {
        case text, webURL, image, movie, file
    }

    package var typeIdentifier: String
    package var content: Content

    package init(typeIdentifier: String, content: Content) {
        self.typeIdentifier = typeIdentifier
        self.content = content
    }

    /// Text, typed `public.plain-text`.
    public static func text(_ text: String) -> InputAttachment {
        InputAttachment(typeIdentifier: TypeIdentifiers.plainText, content: .text(text))
    }

    /// A URL exactly as given, typed `public.url`.
    public static func url(_ url: String) -> InputAttachment {
        InputAttachment(typeIdentifier: TypeIdentifiers.url, content: .url(url))
    }

    /// A file whose type identifier is inferred from its extension (`public.image`,
    /// `public.movie`, else `public.file-url`).
    public static func file(path: String, name: String? = nil) -> InputAttachment {
        let name = name ?? TypeIdentifiers.lastPathComponent(path)
        return InputAttachment(
            typeIdentifier: TypeIdentifiers.forFile(named: name), content: .file(path: path, name: name))
    }

    package var kind: Kind {
        switch content {
        case .text: return .text
        case .url: return .webURL
        case .file:
            if TypeIdentifiers.isImage(typeIdentifier) { return .image }
            if TypeIdentifiers.isMovie(typeIdentifier) { return .movie }
            return .file
        }
    }

    /// The attachment as `getInputItems` answers it.
    package var standardValue: StandardValue {
        var entries: [StandardValue.MapEntry] = [.init("typeIdentifier", .string(typeIdentifier))]
        switch content {
        case .text(let text):
            entries.append(.init("text", .string(text)))
        case .url(let url):
            entries.append(.init("url", .string(url)))
        case .file(let path, let name):
            entries.append(.init("path", .string(path)))
            entries.append(.init("name", .string(name)))
        }
        return .map(entries)
    }
}

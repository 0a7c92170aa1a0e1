public import ChannelBridgeCodec

/// One extension input item as a client sees it (`NSExtensionItem`): a title, a content text and its attachments.
///
/// Decodes from the map `getInputItems` answers with (`Protocol/extension-host.md` §2.1):
/// `title` and `contentText` may be absent or null, `attachments` is required.
public struct ExtensionItem: Sendable, Hashable, Decodable {
    public var title: String?
    public var contentText: String?
    public var attachments: [Attachment]

    /// One attachment (`NSItemProvider`), by what it carries.
    public enum Attachment: Sendable, Hashable {
        case text(String)
        case url(String)
        /// A file copied into the app group container: its type identifier, path and original name.
        case file(typeIdentifier: String, path: String, name: String?)
        /// An attachment of a kind this client does not know, kept as sent.
        case other(StandardValue)
    }

    public init(title: String? = nil, contentText: String? = nil, attachments: [Attachment]) {
        self.title = title
        self.contentText = contentText
        self.attachments = attachments
    }
}

extension ExtensionItem.Attachment: Decodable {
    /// By its `typeIdentifier`: a plain text with its `text`, a URL with its `url`, any other
    /// type with a `path` a file; anything else, whatever its shape, is `.other` as sent.
    public init(from decoder: any Decoder) throws {
        let value = try decoder.singleValueContainer().decode(StandardValue.self)
        let type = value["typeIdentifier"]?.stringValue
        switch type {
        case "public.plain-text"?:
            if let text = value["text"]?.stringValue { self = .text(text); return }
        case "public.url"?:
            if let url = value["url"]?.stringValue { self = .url(url); return }
        default:
            if let type, let path = value["path"]?.stringValue {
                self = .file(typeIdentifier: type, path: path, name: value["name"]?.stringValue)
                return
            }
        }
        self = .other(value)
    }
}

import ChannelBridgeChannels
import ChannelBridgeCodec

/// One extension input item as a client sees it (`NSExtensionItem`): a title, a content text and its attachments.
public struct ExtensionItem: Sendable, Hashable {
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

    static func list(from value: StandardValue, channel: String) throws -> [ExtensionItem] {
        guard let elements = value.listValue else {
            throw ChannelError(.malformedReply, "getInputItems answered \(value), not a list", channel: channel, method: "getInputItems")
        }
        return elements.map { element in
            ExtensionItem(title: element["title"]?.stringValue, contentText: element["contentText"]?.stringValue,
                      attachments: (element["attachments"]?.listValue ?? []).map(Attachment.init))
        }
    }
}

extension ExtensionItem.Attachment {
    init(_ value: StandardValue) {
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

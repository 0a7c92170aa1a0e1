import ChannelBridgeCodec

extension InputItem {
    /// The item `standardValue` describes, as an isolated host's worker receives it from the host;
    /// `nil` for anything `standardValue` does not make.
    init?(standardValue value: StandardValue) {
        guard case .list(let attachments)? = value["attachments"] else { return nil }
        var decoded: [InputAttachment] = []
        for attachment in attachments {
            guard let typeIdentifier = attachment["typeIdentifier"]?.stringValue else { return nil }
            let content: InputAttachment.Content
            if let text = attachment["text"]?.stringValue {
                content = .text(text)
            } else if let url = attachment["url"]?.stringValue {
                content = .url(url)
            } else if let path = attachment["path"]?.stringValue, let name = attachment["name"]?.stringValue {
                content = .file(path: path, name: name)
            } else {
                return nil
            }
            decoded.append(InputAttachment(typeIdentifier: typeIdentifier, content: content))
        }
        self.init(
            title: value["title"]?.stringValue, contentText: value["contentText"]?.stringValue,
            attachments: decoded)
    }
}

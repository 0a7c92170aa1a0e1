import ChannelBridgeCodec
import ChannelBridgeHost

/// Entry point: the host's `--items` file reader, `InputItemsFile.parse(_:source:baseDirectory:)`.
enum ItemsFileTarget: FuzzTarget {
    static let name = "items-file"
    static let base = "/fuzz/base"

    static func run(_ input: [UInt8]) {
        let items: [InputItem]
        do {
            items = try InputItemsFile.parse(input, source: "items.json", baseDirectory: base)
        } catch {
            require(error.code == .invalidInput, "the items reader failed with \(error.code): \(error)")
            return
        }
        for attachment in items.flatMap(\.attachments) {
            require(!attachment.typeIdentifier.isEmpty, "an attachment has an empty type identifier")
            if case .file(let path, let name) = attachment.content {
                require(path.hasPrefix("/"), "file attachment path \(path) is not absolute")
                // The copy goes to CONTAINER/NAME: one file name, never a way out of the container.
                require(
                    !name.isEmpty && name != "." && name != ".." && !name.contains("/") && !name.utf8.contains(0),
                    "file attachment \(path) gets the name \(name.debugDescription)")
            }
        }
        // The items, written back as an items file, read back the same.
        let written = Array(json(items).text.utf8)
        do {
            let again = try InputItemsFile.parse(written, source: "items.json", baseDirectory: "/elsewhere")
            require(again == items, "items written back read differently")
        } catch {
            finding("items written back do not read: \(error)")
        }
    }

    /// An items file for `items`, every field explicit.
    static func json(_ items: [InputItem]) -> JSONValue {
        .object([
            .init(
                "items",
                .array(
                    items.map { item in
                        var members: [JSONValue.Member] = []
                        if let title = item.title { members.append(.init("title", .string(title))) }
                        if let contentText = item.contentText {
                            members.append(.init("contentText", .string(contentText)))
                        }
                        members.append(
                            .init(
                                "attachments",
                                .array(
                                    item.attachments.map { attachment in
                                        var fields: [JSONValue.Member]
                                        switch attachment.content {
                                        case .text(let text): fields = [.init("text", .string(text))]
                                        case .url(let url): fields = [.init("url", .string(url))]
                                        case .file(let path, let name):
                                            fields = [.init("file", .string(path)), .init("name", .string(name))]
                                        }
                                        fields.append(.init("typeIdentifier", .string(attachment.typeIdentifier)))
                                        return .object(fields)
                                    })))
                        return .object(members)
                    }))
        ])
    }

    static func seeds(_ source: SeedSource) throws -> [[UInt8]] {
        try source.committed(name)
    }
}

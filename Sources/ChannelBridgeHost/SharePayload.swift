import ChannelBridgeCodec
import FoundationEssentials

/// The string the originating share extension stores under its share key (`ShareKey`): JSON
/// `{"text": [...], "files": [...]}` with every text and URL attachment (URLs as their text) in
/// `text`, and per file `{"path": "file://…", "thumbnail": null, "duration": null, "type": 0|1|2}`
/// (0 image, 1 video, 2 any other file) in `files`.
///
/// ```swift
/// SharePayload.json(for: [InputItem(attachments: [.text("hi"), .url("https://example.com")])])
/// // {"text":["hi","https://example.com"],"files":[]}
/// ```
package enum SharePayload {
    package static func json(for items: [InputItem]) -> String {
        var texts: [JSONValue] = []
        var files: [JSONValue] = []
        for attachment in items.flatMap(\.attachments) {
            switch attachment.content {
            case .text(let text):
                texts.append(.string(text))
            case .url(let url):
                texts.append(.string(url))
            case .file(let path, _):
                let type: Int =
                    switch attachment.kind {
                    case .image: 0
                    case .movie: 1
                    default: 2
                    }
                files.append(
                    .object([
                        .init("path", .string(URL(fileURLWithPath: path).absoluteString)),
                        .init("thumbnail", .null),
                        .init("duration", .null),
                        .init("type", .number(String(type))),
                    ]))
            }
        }
        return JSONValue.object([.init("text", .array(texts)), .init("files", .array(files))]).text
    }
}

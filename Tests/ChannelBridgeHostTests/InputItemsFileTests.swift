import ChannelBridgeTestSupport
import ChannelBridgeCodec
import ChannelBridgeHost
import Testing

@Suite struct InputItemsFileTests {
    private static func parse(_ text: String) throws(HostError) -> [InputItem] {
        try InputItemsFile.parse(Array(text.utf8), source: "items.json", baseDirectory: "/base")
    }

    @Test func attachmentsKeepTheirOrderAndDefaults() throws {
        let items = try Self.parse(
            """
            {"items": [{"title": null, "contentText": "c", "attachments": [
              {"text": "t"}, {"url": "https://u"}, {"file": "rel/photo.heic"},
              {"file": "/abs/x", "typeIdentifier": "com.adobe.pdf", "name": "doc.pdf"}]}, {"attachments": []}]}
            """)
        #expect(
            items == [
                InputItem(
                    contentText: "c",
                    attachments: [
                        .text("t"), .url("https://u"),
                        InputAttachment(
                            typeIdentifier: "public.image",
                            content: .file(path: "/base/rel/photo.heic", name: "photo.heic")),
                        InputAttachment(
                            typeIdentifier: "com.adobe.pdf", content: .file(path: "/abs/x", name: "doc.pdf")),
                    ]),
                InputItem(),
            ])
        #expect(
            items[0].standardValue
                == .map([
                    .init("contentText", "c"),
                    .init(
                        "attachments",
                        .list([
                            ["typeIdentifier": "public.plain-text", "text": "t"],
                            ["typeIdentifier": "public.url", "url": "https://u"],
                            ["typeIdentifier": "public.image", "path": "/base/rel/photo.heic", "name": "photo.heic"],
                            ["typeIdentifier": "com.adobe.pdf", "path": "/abs/x", "name": "doc.pdf"],
                        ])),
                ]))
    }

    @Test(arguments: [
        (#"[]"#, #"--items items.json: the file must hold an object {"items": [...]}"#),
        (#"{"items": {}}"#, #"--items items.json: "items" must be an array of items"#),
        (#"{"items": [], "extra": 1}"#, #"--items items.json: unknown member "extra" (allowed: "items")"#),
        (
            #"{"items": [{"title": "t"}]}"#,
            #"--items items.json: items[0]: "attachments" must be an array (it may be empty)"#
        ),
        (
            #"{"items": [{"attachments": [{"text": "a", "url": "b"}]}]}"#,
            #"--items items.json: items[0].attachments[0]: an attachment needs exactly one of "text", "url" or "file""#
        ),
        (
            #"{"items": [{"attachments": [{"text": 3}]}]}"#,
            #"--items items.json: items[0].attachments[0]: "text" must be a string"#
        ),
        (
            #"{"items": [{"attachments": [{"url": "u", "name": "n"}]}]}"#,
            #"--items items.json: items[0].attachments[0]: "name" is for file attachments only"#
        ),
        (
            #"{"items": [{"attachments": [{"file": "f", "name": "a/b"}]}]}"#,
            #"--items items.json: items[0].attachments[0]: "name" must be one file name (no '/'), not "a/b""#
        ),
        (
            #"{"items": [{"attachments": [], "attachments": []}]}"#,
            #"--items items.json: items[0]: member "attachments" given twice"#
        ),
    ])
    func malformedFilesAreRefusedNamingThePlace(text: String, message: String) {
        let error = #expect(throws: HostError.self) { try Self.parse(text) }
        #expect(error?.message == message)
        #expect(error?.code == .invalidInput)
    }

    @Test func notJSONIsRefused() {
        let error = #expect(throws: HostError.self) { try Self.parse("{items") }
        #expect(error?.message.hasPrefix("--items items.json: not JSON: ") == true)
    }
}
